export { AnthropicProvider } from './anthropic-provider.js';
export type { AnthropicProviderOptions } from './anthropic-provider.js';
export { buildAnthropicParams, toAnthropicMessages, sanitizeAnthropicToolId, thinkingBudget, usesAdaptiveThinking, ANTHROPIC_CONVERSATION_CONTINUED } from './anthropic-request.js';
export type { AnthropicConversation, AnthropicMessageOptions, AnthropicTurn, AnthropicParamOptions } from './anthropic-request.js';
export { ANTHROPIC_BREAKPOINT_PRIORITY, ANTHROPIC_MAX_CACHE_BREAKPOINTS, mayCarryCacheControl } from './anthropic-cache-breakpoints.js';
export { parseAnthropicMessage, anthropicUsage, anthropicFinishReason, AnthropicStreamAccumulator } from './anthropic-response.js';
