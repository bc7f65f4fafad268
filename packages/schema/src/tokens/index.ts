/** Token estimation of messages and prompts: the reference estimator, per-provider estimators and their caches. */
export type { TokenCounter, TokenSource } from './token-counter.js';
export {
  estimateMessageTokens,
  estimatePromptTokens,
  estimatePromptTokensChain,
  estimatePromptTokensWithSource,
  MESSAGE_TOKEN_OVERHEAD,
  clearTokenCaches,
} from './tokens.js';
export type { PromptEstimate } from './tokens.js';
export type { PromptEstimateOptions } from './estimate-options.js';
export { createEstimator, referenceEstimator } from './create-estimator.js';
export type { TokenEstimator, CreateEstimatorOptions, EstimateMode } from './create-estimator.js';
export {
  TOKENS_PER_MESSAGE,
  TOKENS_PER_NAME,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_TOOL_CALL,
  CLAUDE_TOKEN_FACTOR,
  CLAUDE_TOOL_SYSTEM_PROMPT_TOKENS,
  IMAGE_PART_TOKENS,
} from './provider-token-counts.js';
