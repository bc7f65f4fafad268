import type { Message } from '@nanobot/schema';
import { findLegalMessageStart } from './find-legal-message-start.js';
import { messageTokens, promptTokens, type EstimateContext } from '../../sizing/estimate.js';
import { isInstructionRole } from '../target/govern-target.js';
import { makeCutPlan, type CutPlan } from './cut-plan.js';
import { planHistoryCut } from './plan-history-cut.js';
import type { DerivationCache } from '../derivation-cache.js';
import { defineStep } from '../step.js';
import { pendingStep } from '../size/shorten-newest-results.js';
import { keepServerAnchor, type ServerAnchorDecision } from './server-compaction-anchor.js';

/** Share of the room behind the instructions a fresh stable cut fills (see `cutTargetRatio`). */
export const DEFAULT_CUT_TARGET_RATIO = 0.6;

/** Options of {@link snipHistory}. */
export interface SnipHistoryOptions extends EstimateContext {
  /** The input budget ({@link inputBudget}); `<= 0` turns snipping off. */
  budget: number;
  /**
   * `'reference'` keeps the reference's result even when it overflows (a tool loop with no
   * user message inside the budget-sized tail is then never trimmed). Default `'fixed'`.
   */
  compat?: 'fixed' | 'reference';
  /**
   * `'stable'` (default): cut in steps at legal starts and re-apply `cutPlan` while the history
   * behind it fits, so consecutive requests share their prefix. `'tightest'`: keep as much as
   * fits at every request (the start moves with almost every request once over budget).
   * Ignored with `compat: 'reference'`.
   */
  cuts?: 'stable' | 'tightest';
  /** The previous request's {@link CutPlan} (stable cuts); a plan that does not match is ignored. */
  cutPlan?: CutPlan | null;
  /**
   * A fresh stable cut keeps the longest legal tail within this share (0 < r <= 1) of the
   * budget left after instructions and tools. Default {@link DEFAULT_CUT_TARGET_RATIO}.
   */
  cutTargetRatio?: number;
  /** Where message fingerprints are kept (the cut plan's). */
  derive?: DerivationCache;
}

/** Result of {@link snipHistory}. */
export interface SnipHistoryResult {
  messages: Message[];
  /** Messages cut from the model copy (input objects). */
  removed: Message[];
  /** Whether the reference's result overflowed and the loop was cut legally instead. */
  loopSnipped: boolean;
  /**
   * Whether the reference's result overflowed (its per-message walk undercounts the joined
   * prompt by a few tokens) and the copy starts at a later user turn instead: the longest
   * user-started tail that fits.
   */
  laterTurn: boolean;
  tokensBefore?: number;
  tokensAfter?: number;
  /** The plan of this cut for the next request (stable cuts that cut), else null. */
  plan: CutPlan | null;
  /** Whether `cutPlan` was re-applied. */
  reused: boolean;
  /** The first kept non-instruction message, when anything was cut. */
  firstKept: Message | null;
  /**
   * How a server compaction anchor decided the cut (`'cut-at-anchor'`: the copy starts at it;
   * `'anchor-kept'`: it is kept in front of a later start); null when none did.
   */
  serverAnchor: ServerAnchorDecision | null;
}

function tailFitting(rest: readonly Message[], from: number, remaining: number, forceNewest: boolean, ctx: EstimateContext): Message[] {
  const kept: Message[] = [];
  let total = 0;
  for (let i = rest.length - 1; i >= from; i--) {
    const t = messageTokens(rest[i], ctx);
    if ((kept.length > 0 || !forceNewest) && total + t > remaining) break;
    kept.push(rest[i]);
    total += t;
  }
  return kept.reverse();
}

function legalTail(kept: Message[], rest: readonly Message[]): Message[] {
  const fallback = kept.length > 0 ? kept : rest.slice(-1);
  let tail: Message[];
  const firstUser = kept.findIndex((m) => m.role === 'user');
  if (firstUser >= 0) {
    tail = kept.slice(firstUser);
  } else {
    const lastUser = rest.findLastIndex((m) => m.role === 'user');
    tail = lastUser >= 0 ? rest.slice(lastUser) : fallback;
  }
  const start = findLegalMessageStart(tail);
  return start > 0 ? tail.slice(start) : tail;
}

/**
 * Cuts old history from the front so the prompt fits the budget (reference `snip_history`):
 * instructions (`system` and `developer` messages) are kept (moved to the front), then a tail
 * starting at a user message and never at an orphaned tool result; if even the last user turn
 * overflows (a long tool loop), that user message and the newest part of its loop that fits.
 * Default (`cuts: 'stable'`): the cut of `cutPlan` while its copy fits, else a fresh cut down to
 * `cutTargetRatio` of the room, sized by whole-prompt counts (the exact counter when given);
 * `result.plan` is the plan to pass next time. `cuts: 'tightest'`: the newest messages that fit
 * (the reference's walk; where it would still overflow, the longest user-started tail that
 * fits), sized by the counter when one is given. `compat: 'reference'`: the reference's walk.
 * Pure: the same array when it already fits; kept messages are the input objects.
 */
export function snipHistory(messages: readonly Message[], options: SnipHistoryOptions): SnipHistoryResult {
  const same = (tokens?: number): SnipHistoryResult => ({
    messages: messages as Message[], removed: [], loopSnipped: false, laterTurn: false, plan: null, reused: false, firstKept: null, serverAnchor: null,
    ...(tokens !== undefined ? { tokensBefore: tokens, tokensAfter: tokens } : {}),
  });
  const budget = options.budget;
  if (messages.length === 0 || !(budget > 0)) return same();
  const before = promptTokens(messages, options);
  if (before <= budget) return same(before);
  // Instructions (`system`, `developer`) are never snipped.
  const system = messages.filter((m) => isInstructionRole(m.role));
  const rest = messages.filter((m) => !isInstructionRole(m.role));
  if (rest.length === 0) return same(before);

  const reference = options.compat === 'reference';
  const stable = !reference && options.cuts !== 'tightest';
  // Sized by whole-prompt counts: stable cuts always, the tightest cut when an exact counter is
  // given (the per-message estimate below would keep less than fits by the counter).
  // The step the model waits on is never cut into (issue 29, item 1): its results were
  // shortened to fit beside the instructions and the user message before this step.
  const pending = reference ? null : pendingStep(messages);
  const keepFrom = pending === null ? undefined : messages.slice(0, pending.call).filter((m) => !isInstructionRole(m.role)).length;
  if (!reference && (stable || options.tokenCounter)) {
    const cut = planHistoryCut(system, rest, {
      ...options, plan: stable ? options.cutPlan ?? null : null, ratio: stable ? options.cutTargetRatio ?? DEFAULT_CUT_TARGET_RATIO : 1,
      ...(keepFrom !== undefined ? { keepFrom } : {}),
    });
    if (cut !== null) {
      const keptSet = new Set(cut.messages);
      return {
        messages: cut.messages,
        removed: messages.filter((m) => !keptSet.has(m)),
        loopSnipped: cut.anchor < cut.start && !cut.reused,
        laterTurn: false,
        tokensBefore: before,
        tokensAfter: cut.tokens,
        // A cut at a server compaction anchor (not a user message) is found again from the
        // anchor itself: it needs no plan.
        plan: stable && cut.start > 0 && rest[cut.anchor].role === 'user' ? makeCutPlan(rest, cut.start, cut.anchor, options.derive, cut.serverAnchorAt) : null,
        reused: cut.reused,
        firstKept: cut.messages[system.length] ?? null,
        serverAnchor: cut.serverAnchor,
      };
    }
  }

  let systemTokens = 0;
  for (const m of system) systemTokens += messageTokens(m, options);
  const fixed = promptTokens(system, options);
  const remaining = Math.max(0, budget - Math.max(systemTokens, fixed));

  const tail = legalTail(tailFitting(rest, 0, remaining, true, options), rest);
  let out = [...system, ...tail];
  let after = promptTokens(out, options);
  let loopSnipped = false;
  let laterTurn = false;
  if (after > budget && !reference) {
    // Prefer whole turns: the longest tail that starts at a later user message and fits. Only
    // when even the last user turn overflows is its tool loop cut.
    const later = fitFromLaterUser(system, rest, rest.length - tail.length, budget, options);
    if (later !== null) {
      out = later.messages;
      after = later.tokens;
      laterTurn = true;
    } else {
      const anchor = rest.findLastIndex((m) => m.role === 'user');
      if (anchor >= 0) {
        const candidate = fitLoop(system, rest, anchor, remaining, budget, options, keepFrom);
        if (candidate !== null && candidate.tokens < after) {
          out = candidate.messages;
          after = candidate.tokens;
          loopSnipped = true;
        }
      }
    }
  }
  // These cuts are not planned with a server compaction anchor in view: one they dropped while
  // keeping what follows it goes back in its place.
  const anchored = keepServerAnchor(rest, out.slice(system.length));
  if (anchored.decision !== null) {
    out = [...system, ...anchored.messages];
    after = promptTokens(out, options);
  }
  const keptSet = new Set(out);
  return {
    messages: out, removed: messages.filter((m) => !keptSet.has(m)), loopSnipped, laterTurn, tokensBefore: before, tokensAfter: after,
    plan: null, reused: false, firstKept: out[system.length] ?? null, serverAnchor: anchored.decision,
  };
}

/**
 * The longest `system + rest[u..]` (legal start applied) with `rest[u]` a user message after
 * `refStart` that fits the budget, or null. Suffix estimates shrink as `u` grows, so a binary
 * search over the user positions finds the boundary; the result is confirmed exactly.
 */
function fitFromLaterUser(
  system: Message[],
  rest: readonly Message[],
  refStart: number,
  budget: number,
  options: SnipHistoryOptions,
): { messages: Message[]; tokens: number } | null {
  const users: number[] = [];
  for (let i = refStart + 1; i < rest.length; i++) if (rest[i].role === 'user') users.push(i);
  const at = (k: number): { messages: Message[]; tokens: number } | null => {
    const tail = rest.slice(users[k]);
    const start = findLegalMessageStart(tail);
    const legal = start > 0 ? tail.slice(start) : tail;
    if (legal.length === 0) return null;
    const msgs = [...system, ...legal];
    return { messages: msgs, tokens: promptTokens(msgs, options) };
  };
  let lo = 0;
  let hi = users.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const c = at(mid);
    if (c !== null && c.tokens <= budget) hi = mid;
    else lo = mid + 1;
  }
  // Estimates of joined text are not strictly monotone: confirm, stepping on if needed.
  for (let k = lo; k < users.length; k++) {
    const c = at(k);
    if (c !== null && c.tokens <= budget) return c;
  }
  return null;
}

function fitLoop(
  system: Message[],
  rest: readonly Message[],
  anchor: number,
  remaining: number,
  budget: number,
  options: SnipHistoryOptions,
  keepFrom: number | undefined,
): { messages: Message[]; tokens: number } | null {
  const user = rest[anchor];
  let room = remaining - messageTokens(user, options);
  let best: { messages: Message[]; tokens: number } | null = null;
  // Per-message estimates differ slightly from the whole-prompt estimate (joins, images), so
  // the room is tightened by the overshoot until the exact estimate fits.
  for (let attempt = 0; attempt < 8; attempt++) {
    const tail = tailFitting(rest, anchor + 1, Math.max(0, room), false, options);
    const start = findLegalMessageStart(tail);
    let legal = start > 0 ? tail.slice(start) : tail;
    // Never into the pending step (default mode) while it fits whole, as shortened before this
    // step, beside the instructions and the user message (issue 29, item 1).
    let pinned = false;
    if (keepFrom !== undefined && keepFrom > anchor && rest.length - legal.length > keepFrom) {
      const whole = [...system, user, ...rest.slice(keepFrom)];
      if (promptTokens(whole, options) <= budget) {
        legal = rest.slice(keepFrom);
        pinned = true;
      }
    }
    const msgs = [...system, user, ...legal];
    const tokens = promptTokens(msgs, options);
    if (best === null || tokens < best.tokens) best = { messages: msgs, tokens };
    if (pinned || tokens <= budget || legal.length === 0) break;
    room -= tokens - budget + 1;
  }
  return best;
}

const LOOP_SNIPPED_NOTE = 'kept the last user message and the newest part of its tool loop; the reference would have overflowed';
const LATER_TURN_NOTE = 'started at a later user turn, the longest whole-turn tail that fits; the reference would have overflowed';
const ANCHOR_NOTES: Readonly<Record<ServerAnchorDecision, string>> = Object.freeze({
  'cut-at-anchor': "cut at the newest server compaction anchor: the server ignores what precedes it, so none of that is kept",
  'anchor-kept': 'kept the newest server compaction anchor (and its tool results) in front of a later cut: the server needs it for everything after it',
});

/** The step: old history cut from the front until the copy fits (stable cuts by default). */
export const snipHistoryStep = defineStep({
  name: 'snipHistory',
  may: ['drop', 'reorder'],
  noopOnClean: false,
  // It cuts only at legal starts (no result whose call is cut away) and moves instructions to the front.
  keepsClean: true,
  runs: () => true,
  run: (list, ctx) => {
    const o = ctx.options;
    // The estimate context spread last (its keys are not these): on Node 20 (V8 11.3) keys added
    // after a spread made a new hidden class for every object (~0.8 µs a key).
    const snipped = snipHistory(list, {
      budget: ctx.budget, compat: ctx.fixed ? 'fixed' : 'reference', cuts: o.cuts ?? 'stable', cutPlan: o.cutPlan ?? null, derive: ctx.derive,
      ...(o.cutTargetRatio !== undefined ? { cutTargetRatio: o.cutTargetRatio } : {}),
      ...ctx.estimate,
    });
    return {
      messages: snipped.messages,
      ...(snipped.tokensBefore !== undefined ? { tokensBefore: snipped.tokensBefore } : {}),
      ...(snipped.tokensAfter !== undefined ? { tokensAfter: snipped.tokensAfter } : {}),
      notes: [
        ...(snipped.loopSnipped ? [LOOP_SNIPPED_NOTE] : snipped.laterTurn ? [LATER_TURN_NOTE] : []),
        ...(snipped.serverAnchor !== null ? [ANCHOR_NOTES[snipped.serverAnchor]] : []),
      ],
      cut: {
        plan: snipped.plan, firstKept: snipped.firstKept, removedCount: snipped.removed.length, reused: snipped.reused,
        ...(snipped.serverAnchor !== null ? { serverCompaction: snipped.serverAnchor } : {}),
      },
    };
  },
});
