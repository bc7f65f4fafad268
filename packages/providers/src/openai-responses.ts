export { OpenAIResponsesProvider } from './openai-responses-provider.js';
export type { OpenAIResponsesProviderOptions } from './openai-responses-provider.js';
export { buildResponsesParams, toResponsesInput, responsesTextFormat, isReasoningBlock } from './responses-request.js';
export type { ReasoningBlock, ResponsesParamOptions } from './responses-request.js';
export { parseResponsesResponse, responsesUsage, ResponsesStreamAccumulator } from './responses-response.js';
