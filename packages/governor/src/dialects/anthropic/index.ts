export { governAnthropic } from './govern-anthropic.js';
// The governor's view of a native history: what the report's message indices refer to.
export { anthropicToModel } from './anthropic-to-model.js';
export type { GovernAnthropicInput, GovernAnthropicOptions, GovernAnthropicResult } from './govern-anthropic.js';
export type {
  AnthropicBlockLike,
  AnthropicMessageLike,
  AnthropicRedactedThinkingBlock,
  AnthropicSystemLike,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicToolLike,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
} from './anthropic-types.js';
export type { GovernReport, GovernStepName, GovernStepReport, ReportedMessage, ReportedToolResult } from '../../report/govern-report.js';
