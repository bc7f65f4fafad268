export { OpenAICompatProvider } from './openai-compat-provider.js';
export type { OpenAICompatProviderOptions } from './openai-compat-provider.js';
export { buildOpenAIParams, toOpenAIMessages, isOpenAIReasoningModel, wantsCacheControl } from './openai-request.js';
export type { OpenAIMessageOptions, OpenAIParamOptions } from './openai-request.js';
export { parseOpenAICompletion, OpenAIStreamAccumulator } from './openai-response.js';
export type { OpenAIResponseOptions } from './openai-response.js';
export { applySpecQuirks, messageKeysFor } from './openai-spec-quirks.js';
export { AzureOpenAIProvider, AZURE_OPENAI_DEFAULT_API_VERSION } from './azure-openai-provider.js';
export type { AzureOpenAIProviderOptions } from './azure-openai-provider.js';
