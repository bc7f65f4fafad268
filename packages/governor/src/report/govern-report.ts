import type { CacheBreakpoints } from '@nanobot/schema';
import type { ReplyReserve } from '../sizing/input-budget.js';
import type { GovernTarget } from '../steps/target/govern-target.js';

/**
 * Names of the steps {@link govern} runs, in the order they run (see `pipeline.ts`; the two
 * repairs after snipping run a second time, and `enforceRoleAlternation` is the user-first
 * rule for `target: 'openai'`).
 */
export type GovernStepName =
  | 'stripPlaceholderAssistantMessages'
  | 'stripMalformedToolCalls'
  | 'repairToolCallIds'
  | 'dropOrphanToolResults'
  | 'regroupToolResults'
  | 'backfillMissingToolResults'
  | 'legalizeForTarget'
  | 'applyToolResultBudget'
  | 'microcompactKeepRecent'
  | 'compactInflightOverflow'
  | 'shortenNewestResults'
  | 'snipHistory'
  | 'enforceRoleAlternation'
  | 'separateToolResultsFromUser'
  | 'placeholderThoughtSignatures'
  | 'currentTurnReasoning'
  | 'shrinkToFit';

/** Why {@link legalizeForTarget} (or a later target step of {@link govern}) changed a message. */
export type TargetChangeReason =
  | 'developer-as-system'
  | 'instruction-as-user-note'
  | 'empty-instruction'
  | 'empty-assistant'
  | 'empty-user'
  | 'empty-tool-result'
  | 'blank-text-removed'
  | 'empty-content-list'
  | 'tool-call-id-sanitized'
  | 'tool-call-id-mapped'
  | 'unsigned-reasoning-only'
  | 'reasoning-content-added'
  | 'thought-signature-placeholder'
  | 'foreign-reasoning-removed'
  | 'server-tool-as-text'
  | 'reasoning-summary-added'
  | 'current-turn-steps-as-text'
  | 'earlier-reasoning-removed';

/** The cut a governed copy was made with, as the report shows it. Plain JSON data. */
export interface ReportedCut {
  /** Index in the governed copy of the first kept non-instruction message (the history start). */
  index: number;
  /** Non-instruction messages cut from the front of the history (0: none). */
  removed: number;
  /** Whether the caller's plan was re-applied (the request repeats the previous one up to there). */
  reused: boolean;
  /**
   * Present when a server compaction anchor (Anthropic `compaction` block, Responses
   * `compaction` item) decided the cut: `'cut-at-anchor'`, the history starts at the newest
   * anchor (the server ignores what precedes it); `'anchor-kept'`, the anchor is kept in front
   * of a later start (the server needs it for everything after it).
   */
  serverCompaction?: 'cut-at-anchor' | 'anchor-kept';
}

/**
 * Why a target step changed a message: {@link TargetChangeReason}s of `legalizeForTarget`, and
 * `merged-same-role` / `trailing-assistant` / `conversation-continued` (role alternation),
 * `offloaded` / `truncated` (shrinkToFit).
 */
export type ReportedChangeReason = TargetChangeReason | 'merged-same-role' | 'trailing-assistant' | 'conversation-continued' | 'assistant-after-tool-results' | 'offloaded' | 'truncated';

/** A message a step removed or added, identified for display. */
export interface ReportedMessage {
  /** Position in the step's input (removed) or output (added). */
  index: number;
  role: string;
  toolCallId?: string;
  name?: string;
  /** First characters of a string content, for display. */
  preview?: string;
  /** Why a target step dropped, added or rewrote it (a rewrite is a removal plus an addition). */
  reason?: ReportedChangeReason;
  /** Where shrinkToFit saved the full content (`reason: 'offloaded'`). */
  location?: string;
  /** Size in code points before shrinkToFit shortened it. */
  originalChars?: number;
}

/** One tool result whose content a step changed. */
export interface ReportedToolResult {
  toolCallId: string;
  name: string;
  action: 'offloaded' | 'truncated' | 'empty-marker' | 'offload-failed' | 'compacted' | 'recompacted' | 'renamed' | 'moved';
  /** Where an offloaded result was saved. */
  location?: string;
  originalChars?: number;
  /** The id before renaming. */
  from?: string;
  error?: string;
}

/**
 * What one step did. Plain JSON data. Its `removed` and `added` lists are frozen and may be the
 * very arrays an earlier report held: a Governor repeating a cut hands every request the same
 * list of the ~all-of-history messages it cut, instead of a copy per request (at 100,000
 * messages that copy cost more than the rest of the call). A Governor's memos may also define
 * them as lists built when first read (own enumerable accessors until then, listing what the
 * step did in that call however late they are read). Copy them (`[...step.removed]`) before
 * changing anything; the other fields are the caller's own.
 */
export interface GovernStepReport {
  step: GovernStepName;
  /** 1 for the first run of a step, 2 for the repeat after snipping. */
  pass: number;
  changed: boolean;
  messagesBefore: number;
  messagesAfter: number;
  /** Prompt estimates (present when the call had a budget or asked for estimates). */
  tokensBefore?: number;
  tokensAfter?: number;
  /** Messages the step removed, by their index in its input (frozen, shared between reports). */
  removed: readonly ReportedMessage[];
  /** Messages the step added, by their index in its output (frozen, shared between reports). */
  added: readonly ReportedMessage[];
  toolResults: ReportedToolResult[];
  /** Free-text remarks, e.g. that snipping cut inside a tool loop. */
  notes?: string[];
}

/** Why a governed copy is over its budget (present exactly when `fits` is false). */
export interface BudgetOverflow {
  /**
   * `'instructions'`: the system / developer messages and tool definitions alone exceed the
   * budget (nothing the governor may cut); `'newest-turn'`: with them, the newest user turn
   * (and what must stay with it) does not fit, and `onOverflow` was not `'shrink'` or
   * shrinking could not free enough; `'newest-results'`: the copy is within the budget only
   * because the results the model waits on were replaced by a note (not even a short preview
   * fitted beside the instructions, the user's message and the calls) — `tokens` may then be
   * at most `budget`.
   */
  reason: 'instructions' | 'newest-turn' | 'newest-results';
  /** Prompt estimate of the copy sent. */
  tokens: number;
  budget: number;
  /** Estimate of the instructions and tool definitions alone. */
  instructionTokens: number;
  /** A sentence for logs and UIs. */
  message: string;
}

/** What {@link govern} did to produce the model copy. Plain JSON data a UI can draw. */
export interface GovernReport {
  /**
   * The input budget in tokens (0: compaction and snipping were off); with a calibrator, in
   * estimate units: the largest estimate whose calibrated count fits `inputBudget`.
   */
  budget: number;
  /** The API the copy was made legal for; `null` with `compat: 'reference'` and no target. */
  target: GovernTarget | null;
  /** Whether the copy fits the budget; present whenever there is a budget. */
  fits?: boolean;
  /** Why the copy does not fit (present exactly when `fits` is false). */
  overflow?: BudgetOverflow;
  messagesBefore: number;
  messagesAfter: number;
  tokensBefore?: number;
  tokensAfter?: number;
  /**
   * With a calibrator and a model: the raw estimate of the copy sent (= `tokensAfter`), and the
   * count the calibrator expects the provider to bill for it (what sizing fitted into the
   * model's input budget).
   */
  tokensEstimated?: number;
  tokensCalibrated?: number;
  /** With a calibrator and a model: the model's input budget in billed tokens (`budget` is it in estimate units). */
  inputBudget?: number;
  /**
   * With a window: the tokens kept for the reply and where the number came from —
   * `maxOutputTokens` / `providerMaxTokens` (the caller's), `model` (the model table), `window`
   * (the default mode's default, an eighth of the window between 512 and 8192 tokens; see
   * `windowReplyReserve`) or `reference-default` (4096, `compat: 'reference'`).
   */
  replyReserve?: ReplyReserve;
  /** Ids compacted by this call (also added to `options.compactedToolCallIds`). */
  newlyCompactedToolCallIds: string[];
  steps: GovernStepReport[];
  /**
   * Where the returned copy's stable prefixes end (indices into the returned messages), for
   * prompt-cache breakpoints: pass it as `LLMRequest.cacheBreakpoints`. See `cacheBoundaries`.
   */
  cacheBoundaries: CacheBreakpoints;
  /** Where the history was cut (present whenever there is a budget; `removed: 0` when not cut). */
  cut?: ReportedCut;
  /**
   * Present when the request turns on server-side context editing (`serverContextManagement`):
   * the server may still clear or compact what this copy holds, so the copy is not exactly
   * what the model will read. `edits`: the edit types (`clear_tool_uses_20250919`,
   * `compact_20260112`, `compaction`, …).
   */
  serverEditing?: { edits: string[] };
}
