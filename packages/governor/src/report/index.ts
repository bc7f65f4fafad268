// What the governor says it did: the report's types and the cache boundaries of a copy.
export type { BudgetOverflow, GovernReport, GovernStepName, GovernStepReport, ReportedChangeReason, ReportedMessage, ReportedToolResult } from './govern-report.js';
export { cacheBoundaries } from './cache-boundaries.js';
export type { CacheBoundaryOptions } from './cache-boundaries.js';
