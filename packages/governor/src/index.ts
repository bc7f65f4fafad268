export { govern } from './govern.js';
export type { GovernOptions, GovernResult } from './govern.js';
export { createGovernor } from './governor.js';
export type { Governor, GovernorCallOptions, GovernorOptions, GovernorSessionState } from './governor.js';
export type { GovernorHistory } from './governor-history.js';
export { PIPELINE } from './pipeline.js';
export type { GovernStep, StepContext, StepEffect, StepOutcome, StepCut } from './steps/step.js';
export type { TargetBehaviour, TargetProfile, TargetRule, TargetRuleDoc, DocumentedTargetRule } from './steps/target/target-profile.js';
export { ruleForReason } from './steps/target/target-profile.js';
export { separateToolResultsFromUser, TOOL_RESULTS_RECEIVED } from './steps/target/separate-tool-results-from-user.js';
export { shortToolCallId, isUnsignedReasoningOnly } from './steps/target/legalize-for-target.js';
export { TARGET_PROFILES, MISTRAL_TOOL_ID_PATTERN } from './steps/target/profiles/index.js';
// The rules' wording apart from the profiles: a program that only governs leaves it out of its bundle.
export { TARGET_RULE_DOCS, documentedRules, ruleDoc } from './steps/target/profiles/docs/index.js';
export { stripPlaceholderAssistantMessages, stripMalformedToolCalls, repairToolCallIds, dropOrphanToolResults, regroupToolResults, backfillMissingToolResults } from './steps/repair/index.js';
export { GOVERN_TARGETS, isInstructionRole, legalizeForTarget, instructionNoteHeader, ANTHROPIC_TOOL_ID_PATTERN, EMPTY_USER_CONTENT, enforceRoleAlternation, CONVERSATION_CONTINUED } from './steps/target/index.js';
export type { GovernTarget, LegalizeForTargetResult, TargetChange, TargetChangeReason, RoleAlternationOptions } from './steps/target/index.js';
export { applyToolResultBudget, applyToolResultBudgetDetailed, maybePersistToolResult, normalizeToolResult, normalizeToolResultDetailed, renderPersistedReference, ensureNonemptyToolResult, microcompactKeepRecent, compactInflightOverflow, shrinkToFit, shortenNewestResults, pendingStep } from './steps/size/index.js';
export type { ToolResultBudgetOptions, ToolResultChange, NormalizeToolResultOptions, NormalizedToolResult, MicrocompactKeepRecentOptions, CompactInflightOptions, CompactInflightResult, ShrinkToFitOptions, ShrinkToFitResult, ShrunkMessage, PendingStep, ShortenNewestOptions, ShortenNewestResult } from './steps/size/index.js';
export { snipHistory, DEFAULT_CUT_TARGET_RATIO, findLegalMessageStart } from './steps/cut/index.js';
export type { SnipHistoryOptions, SnipHistoryResult, CutPlan, ReportedCut } from './steps/cut/index.js';
// FileArtifactStore (node:fs) is exported from `@nanobot/governor/node`: this entry runs everywhere.
export { safeFilename, MemoryArtifactStore } from './offload/index.js';
export type { ArtifactStore, ArtifactRequest } from './offload/index.js';
export { governReplyReserve } from './step-context.js';
export { inputBudget, replyReserve, windowReplyReserve, withModelDefaults, createUsageCalibrator, usageCalibratorFromJSON } from './sizing/index.js';
export type { InputBudgetOptions, ReplyReserve, ReplyReserveSource, ModelOptions, TokenCalibration, UsageCalibrator, UsageCalibratorOptions, UsageCalibratorState, UsageObservation } from './sizing/index.js';
export { cacheBoundaries } from './report/index.js';
export type { BudgetOverflow, GovernReport, GovernStepName, GovernStepReport, ReportedChangeReason, ReportedMessage, ReportedToolResult, CacheBoundaryOptions } from './report/index.js';
export type { MessageLike } from './message-like.js';
export { BudgetExceededError } from './budget-exceeded-error.js';
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
