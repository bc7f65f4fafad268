export { OpenAICompatProvider } from './openai-compat-provider.js';
export type { OpenAICompatProviderOptions } from './openai-compat-provider.js';
export { buildOpenAIParams, toOpenAIMessages, isOpenAIReasoningModel, wantsCacheControl } from './openai-request.js';
export type { OpenAIMessageOptions, OpenAIParamOptions } from './openai-request.js';
export { parseOpenAICompletion, OpenAIStreamAccumulator } from './openai-response.js';
