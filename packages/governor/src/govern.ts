// govern: validates the call, runs the pipeline table (pipeline.ts) through one recorder and
// builds the report. The steps are pure rules; what a call resumes from the previous one comes
// from the incremental layer.
import type { Message } from '@nanobot/schema';
import { BudgetExceededError } from './budget-exceeded-error.js';
import { checkInput, checkOptions, type GovernOptions, type GovernResult } from './govern-options.js';
import { defaultMemos } from './incremental/default-memos.js';
import type { ResumedInput } from './incremental/input-tracker.js';
import type { Conversation, GovernorMemos } from './incremental/memo-store.js';
import { resumeStep, type CleanState } from './incremental/resume.js';
import type { MessageLike } from './message-like.js';
import { PIPELINE } from './pipeline.js';
import { cacheBoundaries } from './report/cache-boundaries.js';
import type { BudgetOverflow, GovernReport } from './report/govern-report.js';
import { StepRecorder } from './report/step-recorder.js';
import { calibratedTokens } from './sizing/calibrated-budget.js';
import { promptTokens } from './sizing/estimate.js';
import { reportedCut } from './steps/cut/cut-plan.js';
import { overBudget, promptSizes } from './steps/size/shrink-to-fit.js';
import type { StepCut, StepOutcome } from './steps/step.js';
import { resolveCall } from './step-context.js';

export type { GovernOptions, GovernResult } from './govern-options.js';

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
  return governWith(defaultMemos(), history, given);
}

function sessionKeyOf(given: unknown): string | null {
  const key = given !== null && typeof given === 'object' ? (given as { sessionKey?: unknown }).sessionKey : undefined;
  return typeof key === 'string' ? key : null;
}

/**
 * {@link govern} with a Governor's memos (null: none, every step runs plainly) and, when the
 * Governor already found it, the conversation `history` belongs to. Same result either way.
 */
export function governWith<M extends MessageLike>(
  memos: GovernorMemos<unknown> | null,
  history: readonly M[],
  given: GovernOptions,
  conversation?: Conversation<unknown>,
): GovernResult<M> {
  if (!Array.isArray(history)) checkInput(history);
  if (memos === null) {
    checkInput(history);
    checkOptions(given);
    return run(null, history as unknown as readonly Message[], null, given) as unknown as GovernResult<M>;
  }
  const outer = memos.clock.begin();
  try {
    let input: ResumedInput = { list: history as unknown as readonly Message[], restore: null };
    if (history.length > 0) {
      const c = conversation ?? memos.conversation(history as unknown as readonly Message[], sessionKeyOf(given));
      // The part a previous call checked (same or equal objects) is not read again.
      input = c.input.resume(history, (from) => checkInput(history, from));
    }
    checkOptions(given);
    const result = run(memos, input.list, input.restore, given);
    if (result.messages === input.list) return { ...result, messages: history as unknown as M[] };
    return result as unknown as GovernResult<M>;
  } finally {
    memos.clock.end(outer);
  }
}

/** Runs the pipeline on `messages` (checked), with the memos when given. */
function run(memos: GovernorMemos<unknown> | null, messages: readonly Message[], restore: Map<Message, Message> | null, given: GovernOptions): GovernResult {
  const { ctx, fullBudget, calibration, tokenCache, replyReserve } = resolveCall(messages, given, memos?.derive, memos?.estimates ?? null);
  const { options, budget, target } = ctx;
  const wantTokens = budget > 0 || options.estimateTokens === true;
  const tokens = (list: readonly Message[]): number | undefined => (wantTokens ? tokenCache.get(list) ?? promptTokens(list, ctx.estimate) : undefined);
  const recorded = ctx.compactedToolCallIds as Set<string>;

  const recorder = new StepRecorder(tokens, tokenCache);
  let current = messages as Message[];
  // A structurally clean history (the usual case for a runner's next request) skips the steps
  // declared no-ops on clean lists; it stays known clean through steps that keep it clean.
  let clean: CleanState | null = null;
  if (memos !== null) {
    const scan = memos.scans.scan(current);
    if (scan.clean) clean = { list: current, openTail: scan.openTail };
  }
  let cut: StepCut | undefined;
  let newlyCompacted: string[] = [];
  let withheld: StepOutcome['withheld'];
  for (const step of PIPELINE) {
    if (!step.runs(ctx, current)) continue;
    const skip = step.noopOnClean && clean !== null && clean.list === current;
    const outcome = skip ? { messages: current } : (memos !== null ? resumeStep(memos, step, current, ctx, clean) : undefined) ?? step.run(current, ctx);
    recorder.record(step.name, current, outcome);
    if (outcome.newlyCompacted !== undefined) {
      // The one intentional mutation (as in the reference): the run's set learns the new ids.
      for (const id of outcome.newlyCompacted) recorded.add(id);
      newlyCompacted = outcome.newlyCompacted;
    }
    if (outcome.cut !== undefined) cut = outcome.cut;
    if (outcome.withheld !== undefined) withheld = outcome.withheld;
    const next = outcome.messages;
    if (clean !== null && clean.list === current && next !== current) {
      clean = !step.keepsClean ? null
        : step.name === 'backfillMissingToolResults' ? { list: next, openTail: null }
          : clean.openTail === null ? { list: next, openTail: null } : null;
    }
    current = next;
  }

  let overflow: BudgetOverflow | undefined;
  // What a step withheld counts only while its notes are in the copy (a later cut may drop them).
  if (withheld !== undefined && !withheld.messages.some((m) => current.includes(m))) withheld = undefined;
  const over = overBudget(current, ctx) ?? (withheld !== undefined ? promptSizes(current, ctx) : null);
  if (over !== null) {
    const reason = over.instructionTokens >= budget ? 'instructions' : over.tokens <= budget ? 'newest-results' : 'newest-turn';
    overflow = {
      reason,
      tokens: over.tokens,
      budget,
      instructionTokens: over.instructionTokens,
      message: reason === 'instructions'
        ? `the instructions and tool definitions alone (~${over.instructionTokens} tokens) exceed the budget of ${budget} tokens`
        : reason === 'newest-results' ? withheld!.reason
          : `the newest user turn with the instructions (~${over.tokens} tokens) exceeds the budget of ${budget} tokens${ctx.onOverflow === 'shrink' ? ' even after shortening' : ''}`,
    };
    if (ctx.onOverflow === 'throw') throw new BudgetExceededError(overflow);
  }

  const reported = budget > 0 && cut !== undefined ? reportedCut(current, cut) : undefined;
  const report: GovernReport = {
    budget,
    target,
    messagesBefore: messages.length,
    messagesAfter: current.length,
    newlyCompactedToolCallIds: newlyCompacted,
    steps: recorder.steps,
    cacheBoundaries: cacheBoundaries(current, {
      hasTools: (options.tools?.length ?? 0) > 0,
      cut: reported !== undefined && reported.removed > 0 && reported.index < current.length ? reported.index : null,
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
  if (replyReserve !== null) report.replyReserve = replyReserve;
  if (budget > 0) report.fits = overflow === undefined;
  const editing = serverEdits(options.serverContextManagement);
  if (editing !== undefined) report.serverEditing = editing;
  if (overflow !== undefined) report.overflow = overflow;
  if (reported !== undefined) report.cut = reported;
  const out = current === messages ? current
    : restore !== null ? current.map((m) => restore.get(m) ?? m)
      : memos !== null ? memos.clock.releasable(current) : current;
  return { messages: out, report, cutPlan: cut?.plan ?? null };
}

/** The edit types of a request's server-side context management (undefined when it has none). */
function serverEdits(cm: GovernOptions['serverContextManagement']): { edits: string[] } | undefined {
  if (cm === undefined || cm === null) return undefined;
  const list = Array.isArray(cm) ? cm : Array.isArray((cm as { edits?: unknown }).edits) ? ((cm as { edits: unknown[] }).edits) : [];
  const edits = list.map((e) => (e !== null && typeof e === 'object' && typeof (e as { type?: unknown }).type === 'string' ? String((e as { type: string }).type) : 'unknown'));
  return edits.length > 0 ? { edits } : undefined;
}
