export { governResponses } from './govern-responses.js';
export type { GovernResponsesOptions, GovernResponsesResult } from './govern-responses.js';
export type {
  ResponsesContentPart,
  ResponsesFunctionCall,
  ResponsesFunctionCallOutput,
  ResponsesItemLike,
  ResponsesMessageItem,
  ResponsesReasoningItem,
  ResponsesToolLike,
} from './responses-types.js';
export type { GovernReport, GovernStepName, GovernStepReport, ReportedMessage, ReportedToolResult } from '../../report/govern-report.js';
