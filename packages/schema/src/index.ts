export type {
  Message,
  MessageContent,
  ContentPart,
  TextPart,
  ImagePart,
  ToolCall,
  ThinkingBlock,
  Role,
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ToolMessage,
} from './message.js';
export { messageSchema, toolCallSchema } from './message.js';
export { NanobotError, ValidationError, SchemaError, ConfigurationError } from './errors.js';
export type { JsonSchema, ToolDefinition } from './tool-definition.js';
export type { TokenCounter, TokenSource } from './token-counter.js';
export type { CacheBreakpoints, LLMProvider, LLMRequest, LLMResponse, LLMStreamEvent, ModelLimits, ModelLimitsRequest, ProviderNotice, ResponseFormat, TokenCount, ToolCallRequest, Usage } from './provider.js';
export { StructuredOutputError, isStrictCompatible, parseStructuredOutput, toResponseFormat } from './structured-output.js';
export type { ResponseFormatInput } from './structured-output.js';
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
export { countTokens, tokenizerLoaded } from './tokenizer.js';
export { createEstimator, referenceEstimator } from './create-estimator.js';
export type { TokenEstimator, CreateEstimatorOptions, EstimateMode } from './create-estimator.js';
export { countWithEncoding, encodingLoaded, encodingLoadMs, clearEncodingCaches } from './encoding-counter.js';
export type { EncodingName } from './encoding-counter.js';
export {
  TOKENS_PER_MESSAGE,
  TOKENS_PER_NAME,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_TOOL_CALL,
  CLAUDE_TOKEN_FACTOR,
  CLAUDE_TOOL_SYSTEM_PROMPT_TOKENS,
  IMAGE_PART_TOKENS,
} from './provider-token-counts.js';
export { tokenizerForModel } from './tokenizer-for-model.js';
export { pythonJsonDumps, pythonJsonString, pythonNumber } from './python-json.js';
export type { PythonJsonDumpsOptions } from './python-json.js';
export {
  codePointLength,
  sliceCodePoints,
  truncateText,
  truncateTextToTokens,
  TRUNCATION_SUFFIX,
} from './truncate-text.js';
export { stringifyTextBlocks } from './stringify-text-blocks.js';
export { safeFilename } from './safe-filename.js';
export { sanitizeSurrogates, hasLoneSurrogate } from './sanitize-surrogates.js';
export { stripThink, extractThink, stripReasoningTags } from './strip-think.js';
export { splitMessage } from './split-message.js';
export { parseMessage, parseMessages } from './parse-message.js';
export { validateJsonSchemaValue } from './validate-json-schema-value.js';
export { castParams, castJsonSchemaValue, pythonInt, pythonFloat } from './cast-params.js';
export { validateParams, assertToolParametersSchema } from './validate-params.js';
export { validateFullJsonSchema, needsFullValidation, compileJsonSchema } from './full-json-schema.js';
export {
  SchemaBuilder,
  StringSchema,
  IntegerSchema,
  NumberSchema,
  BooleanSchema,
  ArraySchema,
  ObjectSchema,
  schemaFragment,
  toolParametersSchema,
} from './schema-builders.js';
export type {
  SchemaLike,
  StringSchemaOptions,
  NumericSchemaOptions,
  BooleanSchemaOptions,
  ArraySchemaOptions,
  ObjectSchemaOptions,
  ToolParametersSchemaOptions,
} from './schema-builders.js';
export { zodToToolParameters } from './zod-to-tool-parameters.js';
export { pythonRepr, pythonStr, pythonTypeName, pythonEquals } from './python-repr.js';
export { lookupModel, costOfUsage, addCosts } from './model-table.js';
export type { ModelInfo, ModelPrices, TokenizerName, UsageCost, LookupModelOptions } from './model-table.js';
export { KNOWN_MODELS } from './known-models.js';
