export { governResponses } from './govern-responses.js';
// The governor's view of a native history: what the report's message indices refer to.
export { responsesToModel } from './responses-to-model.js';
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
