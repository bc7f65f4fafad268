// Cut steps: drop old history from the front so the copy fits, at legal starts, in steps that
// keep the prompt prefix stable (the cut plan).
export { snipHistory, DEFAULT_CUT_TARGET_RATIO } from './snip-history.js';
export type { SnipHistoryOptions, SnipHistoryResult } from './snip-history.js';
export type { CutPlan, ReportedCut } from './cut-plan.js';
export { findLegalMessageStart } from './find-legal-message-start.js';
