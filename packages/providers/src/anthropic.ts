export { AnthropicProvider } from './anthropic-provider.js';
export type { AnthropicProviderOptions } from './anthropic-provider.js';
export { buildAnthropicParams, toAnthropicMessages, sanitizeAnthropicToolId, thinkingBudget, usesAdaptiveThinking, ANTHROPIC_CONVERSATION_CONTINUED } from './anthropic-request.js';
export type { AnthropicConversation, AnthropicTurn, AnthropicParamOptions } from './anthropic-request.js';
export { parseAnthropicMessage, anthropicUsage, anthropicFinishReason, AnthropicStreamAccumulator } from './anthropic-response.js';
