import type { Message, TokenCounter } from '@nanobot/schema';
import { pythonStr, ValidationError } from '@nanobot/schema';
import type { ArtifactStore } from './offload/artifact-store.js';
import { applyToolResultBudgetDetailed } from './steps/size/apply-tool-result-budget.js';
import { backfillMissingToolResults } from './steps/repair/backfill-missing-tool-results.js';
import { compactInflightOverflow } from './steps/size/compact-inflight-overflow.js';
import { BACKFILL_CONTENT, DEFAULT_MAX_TOOL_RESULT_CHARS } from './constants.js';
import { dropOrphanToolResults } from './steps/repair/drop-orphan-tool-results.js';
import type { GovernReport, GovernStepName, GovernStepReport, ReportedMessage, ReportedToolResult } from './report/govern-report.js';
import { inputBudget } from './sizing/input-budget.js';
import { promptTokens } from './sizing/estimate.js';
import { ref } from './report/reported-message.js';
import { beginGovernCall, endGovernCall } from './incremental/list-snapshot.js';
import { appendedList, checkedPrefix, markChecked, releasable } from './incremental/shared-lists.js';
import { structureScan } from './incremental/structure-scan.js';
import { resultId } from './internal/tool-calls.js';
import { microcompactKeepRecent } from './steps/size/microcompact-keep-recent.js';
import { regroup } from './steps/repair/regroup-tool-results.js';
import { repairToolCallIds } from './steps/repair/repair-tool-call-ids.js';
import { snipHistory } from './steps/cut/snip-history.js';
import { stripMalformedToolCalls } from './steps/repair/strip-malformed-tool-calls.js';
import { stripPlaceholderAssistantMessages } from './steps/repair/strip-placeholder-assistant-messages.js';
import { BudgetExceededError } from './budget-exceeded-error.js';
import { cacheBoundaries } from './report/cache-boundaries.js';
import { continuedTurnBefore, type AlternationResult } from './steps/target/enforce-role-alternation.js';
import { alternationWithReport, type ReportedAlternation } from './incremental/alternation-memo.js';
import { legalizeWithReport } from './incremental/legalize-memo.js';
import { GOVERN_TARGETS, isInstructionRole, type GovernTarget } from './steps/target/govern-target.js';
import type { BudgetOverflow, ReportedChangeReason } from './report/govern-report.js';
import type { MessageLike } from './message-like.js';
import { shrinkToFit } from './steps/size/shrink-to-fit.js';
import { checkModelOptions, estimatorFor, withModelDefaults, type ModelOptions } from './sizing/model-defaults.js';
import { calibratedBudget, calibratedTokens } from './sizing/calibrated-budget.js';
import type { TokenCalibration } from './sizing/usage-calibrator.js';
import { checkCutOptions, reportedCut, type CutPlan } from './steps/cut/cut-plan.js';

const LOOP_SNIPPED_NOTE = 'kept the last user message and the newest part of its tool loop; the reference would have overflowed';
const LATER_TURN_NOTE = 'started at a later user turn, the longest whole-turn tail that fits; the reference would have overflowed';

/**
 * Options of {@link govern}. Everything is optional; with none, only the repairs run. `model`
 * (with `models` overrides) fills the window, reply size and `tokenizer` from the model table
 * where they are not set; see {@link ModelOptions}.
 */
export interface GovernOptions extends ModelOptions {
  /** The model's context window. Without it the budget is 0: no compaction, no snipping. */
  contextWindowTokens?: number | null;
  /** Tokens reserved for the reply (default: `providerMaxTokens`, else 4096). */
  maxOutputTokens?: number | null;
  /** The provider's default reply size, used when `maxOutputTokens` is unset. */
  providerMaxTokens?: number | null;
  /** Overrides the computed input budget when set and non-zero (reference semantics). */
  contextBlockLimit?: number | null;
  /** Per-result size limit in characters (default 16000); `<= 0` disables offload and truncation. */
  maxToolResultChars?: number;
  /** Index of the first message appended during the current run; older results are never compacted. */
  inflightStartIndex?: number;
  /**
   * Ids compacted earlier in this run. Keep one set per run and pass it to every call: govern
   * re-applies these compactions (so the prompt prefix stays stable) and ADDS the ids it
   * compacts to this set — the one intentional mutation, as in the reference.
   */
  compactedToolCallIds?: Set<string>;
  /**
   * Tool definitions sent with the request (any JSON: OpenAI `ChatCompletionTool`s, our
   * `ToolDefinition`s); their JSON counts against the budget.
   */
  tools?: readonly object[] | null;
  /**
   * The API the copy is sent to (default `'any'`: legal for both OpenAI and Anthropic). The copy
   * is then directly acceptable to it: empty assistant turns dropped, blank text removed or
   * filled, `developer` kept (OpenAI) or made `system` (Anthropic, `'any'`), mid-history
   * instructions turned into marked user notes, same-role turns merged and a user turn last
   * (Anthropic, `'any'`), a user turn first (all). With `compat: 'reference'` and no target
   * these steps are off.
   */
  target?: GovernTarget;
  /**
   * What to do when the instructions, tools and newest user turn alone exceed the budget:
   * `'shrink'` (default) shortens the newest oversized content (full text saved through
   * `artifactStore` when there is one, cut otherwise; both reported); `'throw'` throws
   * {@link BudgetExceededError}; `'send'` returns the over-budget copy. `report.fits` and
   * `report.overflow` say what happened either way. Default `'send'` with `compat: 'reference'`.
   */
  onOverflow?: 'shrink' | 'throw' | 'send';
  /** Where oversized results are offloaded (sync). Without one they are only truncated. */
  artifactStore?: ArtifactStore | null;
  /** Session bucket for offloaded results. */
  sessionKey?: string | null;
  /**
   * Exact provider token counter, tried before the estimate. Called synchronously (never
   * awaited); must not mutate the messages or tools; may throw (the estimate is used then).
   */
  tokenCounter?: TokenCounter | null;
  /** Opt-in older microcompaction: keep only this many newest compactable results intact. */
  keepRecentCompactableResults?: number | null;
  /**
   * `'reference'` reproduces the reference exactly, weak spots included (no id repair, no
   * regrouping of displaced results, snipping may overflow). Default `'fixed'`.
   */
  compat?: 'fixed' | 'reference';
  /** Report per-step token estimates even without a budget (costs a tokenisation when cold). */
  estimateTokens?: boolean;
  /**
   * Maps the estimate to the count the provider will bill, e.g. a `createUsageCalibrator()` the
   * runner feeds with usage. With a `model`, sizing fits the calibrated count into the budget
   * (`report.budget` is then in estimate units; see `report.inputBudget`). Called synchronously,
   * must be non-decreasing and must not throw (a throw propagates).
   */
  calibrator?: TokenCalibration | null;
  /**
   * How snipping cuts an over-budget history: `'stable'` (default) in steps at turn starts,
   * re-applying `cutPlan` while the history behind it fits (prompt-cache friendly);
   * `'tightest'` as much as fits at every request. Ignored with `compat: 'reference'`.
   */
  cuts?: 'stable' | 'tightest';
  /**
   * The previous request's `result.cutPlan` for this session (plain JSON; null or absent for
   * none). A plan that does not match the history is ignored; a malformed one throws.
   */
  cutPlan?: CutPlan | null;
  /** Share (0 < r <= 1) of the room behind the instructions a fresh stable cut fills (default 0.6). */
  cutTargetRatio?: number;
}

/** Result of {@link govern}. */
export interface GovernResult<M extends MessageLike = Message> {
  /**
   * The model copy: legal for the target and within budget (or `report.fits` is false);
   * unchanged messages are the input objects. Messages the governor adds or rewrites (results
   * for lost calls, notes, merged turns) are Chat Completions messages of the same shape.
   */
  messages: M[];
  report: GovernReport;
  /** The plan of this request's history cut: pass it as `cutPlan` next time (null: no cut). */
  cutPlan: CutPlan | null;
}

function diff(before: readonly Message[], after: readonly Message[]): { removed: ReportedMessage[]; added: ReportedMessage[] } {
  // Steps keep order, so only the stretch between the common prefix and suffix can differ.
  let p = 0;
  while (p < before.length && p < after.length && before[p] === after[p]) p++;
  let sb = before.length;
  let sa = after.length;
  while (sb > p && sa > p && before[sb - 1] === after[sa - 1]) {
    sb--;
    sa--;
  }
  const midBefore = before.slice(p, sb);
  const midAfter = after.slice(p, sa);
  const inAfter = new Set(midAfter);
  const inBefore = new Set(midBefore);
  const removed: ReportedMessage[] = [];
  const added: ReportedMessage[] = [];
  midBefore.forEach((m, i) => { if (!inAfter.has(m)) removed.push(ref(m, p + i)); });
  midAfter.forEach((m, i) => { if (!inBefore.has(m)) added.push(ref(m, p + i)); });
  return { removed, added };
}

function checkInput(messages: unknown): asserts messages is readonly Message[] {
  if (!Array.isArray(messages)) throw new ValidationError('govern: messages must be an array');
  // The part a previous call checked (same objects) is not read again.
  const known = checkedPrefix(messages);
  for (let i = known; i < messages.length; i++) {
    const m = messages[i] as unknown;
    if (m === null || typeof m !== 'object' || Array.isArray(m)) {
      throw new ValidationError(`govern: messages[${i}] must be an object`, [i]);
    }
  }
  if (messages.length > 0) markChecked(messages as Message[], known);
}

const NUMERIC_OPTIONS = [
  'contextWindowTokens', 'maxOutputTokens', 'providerMaxTokens', 'contextBlockLimit',
  'maxToolResultChars', 'inflightStartIndex', 'keepRecentCompactableResults',
] as const;

// Wrong types would otherwise be coerced or silently ignored (a string window from an env var,
// a NaN budget that turns snipping off and puts `null` in the report). Negative numbers keep
// their reference meaning (budget 0, no size limit), so only the type is checked.
function checkOptions(options: unknown): asserts options is GovernOptions {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new ValidationError('govern: options must be an object');
  }
  const o = options as Record<string, unknown>;
  for (const key of NUMERIC_OPTIONS) {
    const v = o[key];
    if (v !== undefined && v !== null && (typeof v !== 'number' || !Number.isFinite(v))) {
      throw new ValidationError(`govern: options.${key} must be a finite number, got ${typeof v === 'number' ? v : JSON.stringify(v) ?? typeof v}`, [key]);
    }
  }
  if (o.compactedToolCallIds !== undefined && !(o.compactedToolCallIds instanceof Set)) {
    throw new ValidationError('govern: options.compactedToolCallIds must be a Set (one per agent run)', ['compactedToolCallIds']);
  }
  if (o.tools !== undefined && o.tools !== null && !Array.isArray(o.tools)) {
    throw new ValidationError('govern: options.tools must be an array of tool definitions', ['tools']);
  }
  const store = o.artifactStore as { persist?: unknown; read?: unknown } | null | undefined;
  if (store !== undefined && store !== null && (typeof store !== 'object' || typeof store.persist !== 'function' || typeof store.read !== 'function')) {
    throw new ValidationError('govern: options.artifactStore must have persist() and read()', ['artifactStore']);
  }
  const counter = o.tokenCounter as { countPromptTokens?: unknown } | null | undefined;
  if (counter !== undefined && counter !== null && typeof counter.countPromptTokens !== 'function') {
    throw new ValidationError('govern: options.tokenCounter must have countPromptTokens()', ['tokenCounter']);
  }
  if (o.sessionKey !== undefined && o.sessionKey !== null && typeof o.sessionKey !== 'string') {
    throw new ValidationError('govern: options.sessionKey must be a string', ['sessionKey']);
  }
  if (o.target !== undefined && !GOVERN_TARGETS.includes(o.target as GovernTarget)) {
    throw new ValidationError(`govern: options.target must be 'openai', 'anthropic' or 'any', got ${JSON.stringify(o.target)}`, ['target']);
  }
  if (o.onOverflow !== undefined && o.onOverflow !== 'shrink' && o.onOverflow !== 'throw' && o.onOverflow !== 'send') {
    throw new ValidationError(`govern: options.onOverflow must be 'shrink', 'throw' or 'send', got ${JSON.stringify(o.onOverflow)}`, ['onOverflow']);
  }
  const calibrator = o.calibrator as { calibrate?: unknown } | null | undefined;
  if (calibrator !== undefined && calibrator !== null && (typeof calibrator !== 'object' || typeof calibrator.calibrate !== 'function')) {
    throw new ValidationError('govern: options.calibrator must have calibrate()', ['calibrator']);
  }
  if (o.compat !== undefined && o.compat !== 'fixed' && o.compat !== 'reference') {
    throw new ValidationError(`govern: options.compat must be 'fixed' or 'reference', got ${JSON.stringify(o.compat)}`, ['compat']);
  }
  checkModelOptions(o);
  checkCutOptions(o);
}

/**
 * Produces the model copy of a history: the reference's `prepare_for_model` steps in its order
 * (placeholders, malformed calls, orphan results, missing results, result size budget,
 * in-flight compaction, snipping, then orphan and missing results again), plus, by default,
 * the fixes for its weak spots (reused or missing call ids, results separated from their call,
 * tool loops snipped legally). Never mutates `messages`; returns the same array when nothing
 * changed. Synchronous: offload writes go through the (sync) `artifactStore`. Throws
 * {@link ValidationError} for input that is not a list of message objects or options of the
 * wrong type (before doing anything), {@link BudgetExceededError} with `onOverflow: 'throw'`,
 * and lets a store or counter bug propagate only where the reference would (offload failures
 * are reported, not thrown).
 *
 * Generic over the message type: a `ChatCompletionMessageParam[]` (openai SDK) or a
 * `Message[]` goes in and the same type comes out.
 */
export function govern<M extends MessageLike = Message>(history: readonly M[], given: GovernOptions = {}): GovernResult<M> {
  const outer = beginGovernCall();
  try {
    return governOnce(history, given);
  } finally {
    endGovernCall(outer);
  }
}

function governOnce<M extends MessageLike>(history: readonly M[], given: GovernOptions): GovernResult<M> {
  checkInput(history);
  checkOptions(given);
  const options = withModelDefaults(given);
  const messages = history as unknown as readonly Message[];
  const fixed = options.compat !== 'reference';
  const target: GovernTarget | null = options.target ?? (fixed ? 'any' : null);
  const onOverflow = options.onOverflow ?? (fixed ? 'shrink' : 'send');
  const calibration = options.calibrator && options.model ? { calibrator: options.calibrator, model: options.model } : null;
  const fullBudget = inputBudget(options);
  const budget = calibration ? calibratedBudget(fullBudget, calibration.calibrator, calibration.model) : fullBudget;
  const tokenCache = new Map<readonly Message[], number>();
  const ctx = { tools: options.tools ?? null, tokenCounter: options.tokenCounter ?? null, estimateCache: tokenCache, estimator: estimatorFor(options) };
  const wantTokens = budget > 0 || options.estimateTokens === true;
  const tokens = (list: readonly Message[]): number | undefined => {
    if (!wantTokens) return undefined;
    let v = tokenCache.get(list);
    if (v === undefined) v = promptTokens(list, ctx);
    return v;
  };
  const passes = new Map<GovernStepName, number>();
  const steps: GovernStepReport[] = [];
  let current: Message[] = messages as Message[];

  const record = (
    step: GovernStepName,
    next: Message[],
    toolResults: ReportedToolResult[] = [],
    known?: { before?: number; after?: number },
    notes?: string[],
    reasons?: { removed: ReportedMessage[]; added: ReportedMessage[] },
  ): void => {
    const pass = (passes.get(step) ?? 0) + 1;
    passes.set(step, pass);
    const changed = next !== current;
    if (known?.before !== undefined) tokenCache.set(current, known.before);
    if (known?.after !== undefined) tokenCache.set(next, known.after);
    const { removed, added } = !changed ? { removed: [], added: [] } : reasons ?? diff(current, next);
    const report: GovernStepReport = {
      step, pass, changed, messagesBefore: current.length, messagesAfter: next.length, removed, added, toolResults,
    };
    if (notes !== undefined && notes.length > 0) report.notes = notes;
    const tb = tokens(current);
    if (tb !== undefined) {
      report.tokensBefore = tb;
      report.tokensAfter = changed ? tokens(next)! : tb;
    }
    steps.push(report);
    current = next;
  };

  // A history that is already clean (the usual case for a runner's next request) skips the
  // repair steps: each would return it unchanged.
  // So is one whose only gap is the open tool batch at its end (a runner's request while tools
  // run): every step but the backfill is a no-op, and the backfill appends the missing results.
  const scan = structureScan(current);
  const clean = scan.clean;
  const repairSteps: GovernStepName[] = fixed
    ? ['stripPlaceholderAssistantMessages', 'stripMalformedToolCalls', 'repairToolCallIds', 'dropOrphanToolResults', 'regroupToolResults', 'backfillMissingToolResults']
    : ['stripPlaceholderAssistantMessages', 'stripMalformedToolCalls', 'dropOrphanToolResults', 'backfillMissingToolResults'];
  if (clean) {
    for (const step of repairSteps) {
      if (step === 'backfillMissingToolResults' && scan.openTail !== null) {
        const fills = tailBackfill(current[scan.openTail.index], scan.openTail.ids);
        const at = current.length;
        record(step, appendedList(current, fills), [], undefined, undefined, { removed: [], added: fills.map((m, j) => ref(m, at + j)) });
      } else record(step, current);
    }
  } else {
    record('stripPlaceholderAssistantMessages', stripPlaceholderAssistantMessages(current));
    record('stripMalformedToolCalls', stripMalformedToolCalls(current));
    if (fixed) {
      const before = current;
      const next = repairToolCallIds(current);
      record('repairToolCallIds', next, renamedResults(before, next));
    }
    record('dropOrphanToolResults', dropOrphanToolResults(current));
    if (fixed) {
      const { messages: next, moved } = regroup(current);
      record('regroupToolResults', next, moved.map((m) => ({ toolCallId: resultId(m) ?? '', name: typeof m.name === 'string' ? m.name : 'tool', action: 'moved' as const })));
    }
    record('backfillMissingToolResults', backfillMissingToolResults(current));
  }

  if (target !== null) {
    // Resumed from the last call on the same history (internal/legalize-memo).
    const legal = legalizeWithReport(current, target);
    record('legalizeForTarget', legal.messages, [], undefined, undefined, legal);
  }

  const budgeted = applyToolResultBudgetDetailed(current, {
    maxToolResultChars: options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
    artifactStore: options.artifactStore ?? null,
    sessionKey: options.sessionKey ?? null,
  });
  record('applyToolResultBudget', budgeted.messages, budgeted.changes);

  if (options.keepRecentCompactableResults !== undefined && options.keepRecentCompactableResults !== null) {
    const mc = microcompactKeepRecent(current, { keepRecent: options.keepRecentCompactableResults });
    const mcName = toolNames(mc.messages, mc.compacted);
    record('microcompactKeepRecent', mc.messages, mc.compacted.map((id) => ({ toolCallId: id, name: mcName(id), action: 'compacted' as const })));
  }

  const recorded = options.compactedToolCallIds ?? new Set<string>();
  const compaction = compactInflightOverflow(current, {
    ...ctx, budget, inflightStartIndex: options.inflightStartIndex ?? 0, compactedToolCallIds: recorded,
  });
  for (const id of compaction.newlyCompacted) recorded.add(id);
  const nameOf = toolNames(compaction.messages, [...compaction.reapplied, ...compaction.newlyCompacted]);
  record(
    'compactInflightOverflow',
    compaction.messages,
    [
      ...compaction.reapplied.map((id) => ({ toolCallId: id, name: nameOf(id), action: 'recompacted' as const })),
      ...compaction.newlyCompacted.map((id) => ({ toolCallId: id, name: nameOf(id), action: 'compacted' as const })),
    ],
    known(compaction.tokensBefore, compaction.tokensAfter),
  );

  const beforeSnip = current;
  const snipped = snipHistory(current, {
    ...ctx, budget, compat: fixed ? 'fixed' : 'reference', cuts: options.cuts ?? 'stable', cutPlan: options.cutPlan ?? null,
    ...(options.cutTargetRatio !== undefined ? { cutTargetRatio: options.cutTargetRatio } : {}),
  });
  record('snipHistory', snipped.messages, [], known(snipped.tokensBefore, snipped.tokensAfter), snipped.loopSnipped ? [LOOP_SNIPPED_NOTE] : snipped.laterTurn ? [LATER_TURN_NOTE] : []);
  // Snipping only cuts a prefix; on an unchanged list the repairs stay no-ops.
  const snippedUnchanged = snipped.messages === beforeSnip;
  record('dropOrphanToolResults', snippedUnchanged && clean ? current : dropOrphanToolResults(current));
  record('backfillMissingToolResults', snippedUnchanged && clean ? current : backfillMissingToolResults(current));

  if (target !== null) {
    // Anthropic needs strict alternation ending with a user turn (an assistant turn last would
    // be a prefill); OpenAI only a user turn first.
    // The Anthropic step is resumed from the last call on the same history (internal/alternation-memo).
    const alt = target === 'openai' ? reportedUserFirst(current) : alternationWithReport(current);
    record('enforceRoleAlternation', alt.messages, [], undefined, undefined, alt);
  }

  let overflow: BudgetOverflow | undefined;
  if (budget > 0) {
    let tokensNow = tokens(current)!;
    if (tokensNow > budget) {
      const instructionTokens = promptTokens(current.filter((m) => isInstructionRole(m.role)), ctx);
      const reason = instructionTokens >= budget ? 'instructions' : 'newest-turn';
      if (onOverflow === 'shrink' && reason === 'newest-turn') {
        const inputIndex = new Map<Message, number>();
        messages.forEach((m, i) => inputIndex.set(m, i));
        const shrunk = shrinkToFit(current, {
          ...ctx, budget, artifactStore: options.artifactStore ?? null, sessionKey: options.sessionKey ?? null,
          idOf: (m, i) => `${String(m.role)}_message_${inputIndex.get(m) ?? `copy_${i}`}`,
        });
        const removed: ReportedMessage[] = [];
        const added: ReportedMessage[] = [];
        for (const s of shrunk.shrunk) {
          const why: ReportedChangeReason = s.location !== undefined ? 'offloaded' : 'truncated';
          removed.push({ ...ref(current[s.index], s.index), reason: why });
          const a: ReportedMessage = { ...ref(shrunk.messages[s.index], s.index), reason: why, originalChars: s.originalChars };
          if (s.location !== undefined) a.location = s.location;
          added.push(a);
        }
        const errors = shrunk.shrunk.flatMap((s) => (s.error !== undefined ? [`saving message ${s.index} failed (${s.error}); it was cut instead`] : []));
        record('shrinkToFit', shrunk.messages, [], { after: shrunk.tokens }, errors, { removed, added });
        tokensNow = shrunk.tokens;
      }
      if (tokensNow > budget) {
        overflow = {
          reason,
          tokens: tokensNow,
          budget,
          instructionTokens,
          message: reason === 'instructions'
            ? `the instructions and tool definitions alone (~${instructionTokens} tokens) exceed the budget of ${budget} tokens`
            : `the newest user turn with the instructions (~${tokensNow} tokens) exceeds the budget of ${budget} tokens${onOverflow === 'shrink' ? ' even after shortening' : ''}`,
        };
        if (onOverflow === 'throw') throw new BudgetExceededError(overflow);
      }
    }
  }

  const cut = budget > 0 ? reportedCut(current, snipped) : undefined;
  const report: GovernReport = {
    budget,
    target,
    messagesBefore: messages.length,
    messagesAfter: current.length,
    newlyCompactedToolCallIds: compaction.newlyCompacted,
    steps,
    cacheBoundaries: cacheBoundaries(current, {
      hasTools: (options.tools?.length ?? 0) > 0,
      cut: cut !== undefined && cut.removed > 0 && cut.index < current.length ? cut.index : null,
    }),
  };
  const tb = tokens(messages);
  if (tb !== undefined) {
    report.tokensBefore = tb;
    report.tokensAfter = tokens(current)!;
  }
  if (calibration !== null && report.tokensAfter !== undefined) {
    report.tokensEstimated = report.tokensAfter;
    report.tokensCalibrated = calibratedTokens(calibration.calibrator, calibration.model, report.tokensAfter);
    report.inputBudget = fullBudget;
  }
  if (budget > 0) report.fits = overflow === undefined;
  if (overflow !== undefined) report.overflow = overflow;
  if (cut !== undefined) report.cut = cut;
  return { messages: releasable(current) as unknown as M[], report, cutPlan: snipped.plan };
}

function reportedUserFirst(messages: Message[]): ReportedAlternation {
  const alt = userFirst(messages);
  return { messages: alt.messages, removed: [], added: alt.added.map((a) => ({ ...ref(alt.messages[a.index], a.index), reason: a.reason })) };
}

/** A user turn first after the instructions: the `(conversation continued)` turn when not. */
function userFirst(messages: Message[]): AlternationResult {
  const first = messages.findIndex((m) => !isInstructionRole(m.role));
  if (first < 0 || messages[first].role === 'user') return { messages, removed: [], added: [] };
  return {
    messages: [...messages.slice(0, first), continuedTurnBefore(messages[first]), ...messages.slice(first)],
    removed: [],
    added: [{ index: first, reason: 'conversation-continued' }],
  };
}
// Backfilled results for an open tail, one list per assistant turn and open set, so the next
// request reuses the same objects (estimates cached, prompt byte-stable).
const tailFills = new WeakMap<Message, { key: string; fills: Message[] }>();

/** What backfillMissingToolResults appends for the still-open calls of the last turn. */
function tailBackfill(turn: Message, open: ReadonlySet<string>): Message[] {
  const key = [...open].join('\u0000');
  const hit = tailFills.get(turn);
  if (hit !== undefined && hit.key === key) return hit.fills;
  const fills: Message[] = [];
  for (const call of turn.tool_calls ?? []) {
    if (!open.has(call.id)) continue;
    const fn = call.function as unknown;
    const name = fn !== null && typeof fn === 'object' && !Array.isArray(fn) ? pythonStr((fn as { name?: unknown }).name ?? null) : '';
    fills.push({ role: 'tool', tool_call_id: call.id, name, content: BACKFILL_CONTENT });
  }
  tailFills.set(turn, { key, fills });
  return fills;
}

/** Estimates a step already made, without undefined fields. */
function known(before: number | undefined, after: number | undefined): { before?: number; after?: number } {
  const out: { before?: number; after?: number } = {};
  if (before !== undefined) out.before = before;
  if (after !== undefined) out.after = after;
  return out;
}

function toolNames(messages: readonly Message[], ids: readonly string[]): (id: string) => string {
  const names = new Map<string, string>();
  if (ids.length > 0) {
    const wanted = new Set(ids);
    for (const m of messages) {
      const id = m.role === 'tool' ? resultId(m) : null;
      if (id !== null && wanted.has(id) && !names.has(id)) names.set(id, typeof m.name === 'string' ? m.name : 'tool');
    }
  }
  return (id) => names.get(id) ?? 'tool';
}

function renamedResults(before: readonly Message[], after: readonly Message[]): ReportedToolResult[] {
  if (before === after) return [];
  const out: ReportedToolResult[] = [];
  for (let i = 0; i < after.length; i++) {
    const a = after[i];
    const b = before[i];
    if (a === b || a.role !== 'tool') continue;
    out.push({ toolCallId: String(a.tool_call_id), name: typeof a.name === 'string' ? a.name : 'tool', action: 'renamed', from: resultId(b) ?? '' });
  }
  return out;
}
