export { govern } from './govern.js';
export type { GovernOptions, GovernResult } from './govern.js';
export type { BudgetOverflow, GovernReport, GovernStepName, GovernStepReport, ReportedChangeReason, ReportedMessage, ReportedToolResult } from './govern-report.js';
export { GOVERN_TARGETS, isInstructionRole } from './govern-target.js';
export { cacheBoundaries } from './cache-boundaries.js';
export type { CacheBoundaryOptions } from './cache-boundaries.js';
export type { GovernTarget } from './govern-target.js';
export type { MessageLike } from './message-like.js';
export { BudgetExceededError } from './budget-exceeded-error.js';
export { legalizeForTarget, instructionNoteHeader, ANTHROPIC_TOOL_ID_PATTERN, EMPTY_USER_CONTENT } from './legalize-for-target.js';
export type { LegalizeForTargetResult, TargetChange, TargetChangeReason } from './legalize-for-target.js';
export { shrinkToFit } from './shrink-to-fit.js';
export type { ShrinkToFitOptions, ShrinkToFitResult, ShrunkMessage } from './shrink-to-fit.js';
// The message model, so the governor alone is enough to name what it takes and returns.
export type {
  AssistantMessage,
  CacheBreakpoints,
  ContentPart,
  ImagePart,
  Message,
  MessageContent,
  Role,
  SystemMessage,
  TextPart,
  ThinkingBlock,
  TokenCounter,
  ToolCall,
  ToolDefinition,
  ToolMessage,
  UserMessage,
} from '@nanobot/schema';
export { stripPlaceholderAssistantMessages } from './strip-placeholder-assistant-messages.js';
export { stripMalformedToolCalls } from './strip-malformed-tool-calls.js';
export { repairToolCallIds } from './repair-tool-call-ids.js';
export { dropOrphanToolResults } from './drop-orphan-tool-results.js';
export { regroupToolResults } from './regroup-tool-results.js';
export { backfillMissingToolResults } from './backfill-missing-tool-results.js';
export { applyToolResultBudget, applyToolResultBudgetDetailed } from './apply-tool-result-budget.js';
export type { ToolResultBudgetOptions, ToolResultChange } from './apply-tool-result-budget.js';
export { compactInflightOverflow } from './compact-inflight-overflow.js';
export type { CompactInflightOptions, CompactInflightResult } from './compact-inflight-overflow.js';
export { microcompactKeepRecent } from './microcompact-keep-recent.js';
export type { MicrocompactKeepRecentOptions } from './microcompact-keep-recent.js';
export { snipHistory, DEFAULT_CUT_TARGET_RATIO } from './snip-history.js';
export type { CutPlan, ReportedCut } from './cut-plan.js';
export type { SnipHistoryOptions, SnipHistoryResult } from './snip-history.js';
export { inputBudget } from './input-budget.js';
export { createUsageCalibrator, usageCalibratorFromJSON } from './usage-calibrator.js';
export type { TokenCalibration, UsageCalibrator, UsageCalibratorOptions, UsageCalibratorState, UsageObservation } from './usage-calibrator.js';
export type { InputBudgetOptions } from './input-budget.js';
export { withModelDefaults } from './model-defaults.js';
export type { ModelOptions } from './model-defaults.js';
export { maybePersistToolResult, normalizeToolResult, normalizeToolResultDetailed, renderPersistedReference } from './normalize-tool-result.js';
export type { NormalizeToolResultOptions, NormalizedToolResult } from './normalize-tool-result.js';
export { ensureNonemptyToolResult } from './ensure-nonempty-tool-result.js';
export { safeFilename } from './artifact-store.js';
export type { ArtifactStore, ArtifactRequest } from './artifact-store.js';
export { FileArtifactStore } from './file-artifact-store.js';
export type { FileArtifactStoreOptions } from './file-artifact-store.js';
export { MemoryArtifactStore } from './memory-artifact-store.js';
export { enforceRoleAlternation, CONVERSATION_CONTINUED } from './enforce-role-alternation.js';
export type { RoleAlternationOptions } from './enforce-role-alternation.js';
export { findLegalMessageStart } from './find-legal-message-start.js';
export {
  BACKFILL_CONTENT,
  COMPACTABLE_TOOLS,
  DEFAULT_MAX_TOOL_RESULT_CHARS,
  INFLIGHT_COMPACT_TARGET_RATIO,
  MICROCOMPACT_KEEP_RECENT,
  MICROCOMPACT_MIN_CHARS,
  PLACEHOLDER_TEXTS,
  SNIP_SAFETY_BUFFER,
  TOOL_RESULT_MAX_BUCKETS,
  TOOL_RESULT_OFFLOAD_EXEMPT_TOOLS,
  TOOL_RESULT_PREVIEW_CHARS,
  TOOL_RESULT_RETENTION_SECONDS,
  TOOL_RESULTS_DIR,
  compactionMessage,
  emptyResultMessage,
} from './constants.js';
export { checkLegality } from './check-legality.js';
export type { CheckLegalityOptions, LegalityRule, LegalityViolation } from './check-legality.js';
