export { BedrockProvider } from './bedrock/bedrock-provider.js';
export type { BedrockProviderOptions } from './bedrock/bedrock-provider.js';
export { buildConverseInput, toConverseMessages } from './bedrock/bedrock-request.js';
export type { ConverseBlock, ConverseMessage, ConverseParamOptions } from './bedrock/bedrock-request.js';
export { parseConverseOutput, bedrockUsage, bedrockFinishReason, BedrockStreamAccumulator } from './bedrock/bedrock-response.js';
