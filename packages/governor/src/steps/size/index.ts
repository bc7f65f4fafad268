// Size steps: shorten what is too large (results over the size limit, in-flight results under
// pressure, the newest content that cannot fit otherwise).
export { applyToolResultBudget, applyToolResultBudgetDetailed } from './apply-tool-result-budget.js';
export type { ToolResultBudgetOptions, ToolResultChange } from './apply-tool-result-budget.js';
export { maybePersistToolResult, normalizeToolResult, normalizeToolResultDetailed, renderPersistedReference } from './normalize-tool-result.js';
export type { NormalizeToolResultOptions, NormalizedToolResult } from './normalize-tool-result.js';
export { ensureNonemptyToolResult } from './ensure-nonempty-tool-result.js';
export { microcompactKeepRecent } from './microcompact-keep-recent.js';
export type { MicrocompactKeepRecentOptions } from './microcompact-keep-recent.js';
export { compactInflightOverflow } from './compact-inflight-overflow.js';
export type { CompactInflightOptions, CompactInflightResult } from './compact-inflight-overflow.js';
export { shrinkToFit } from './shrink-to-fit.js';
export type { ShrinkToFitOptions, ShrinkToFitResult, ShrunkMessage } from './shrink-to-fit.js';
export { minimalCopy, noRoomNote, pendingStep, shortenNewestResults, NEWEST_PREVIEW_MIN_CHARS } from './shorten-newest-results.js';
export type { PendingStep, ShortenNewestOptions, ShortenNewestResult } from './shorten-newest-results.js';
