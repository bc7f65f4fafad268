/** The provider interface every model backend implements, and structured-output helpers. */
export type { CacheBreakpoints, LLMProvider, LLMRequest, LLMResponse, LLMStreamEvent, ModelLimits, ModelLimitsRequest, ProviderNotice, ResponseFormat, TokenCount, ToolCallRequest, Usage } from './provider.js';
export { StructuredOutputError, isStrictCompatible, parseStructuredOutput, toResponseFormat } from './structured-output.js';
export type { ResponseFormatInput } from './structured-output.js';
