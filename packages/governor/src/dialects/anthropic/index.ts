export { governAnthropic } from './govern-anthropic.js';
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
