import type { Message } from '@nanobot/schema';
import { findLegalMessageStart } from './find-legal-message-start.js';
import { messageTokens, promptTokens, type EstimateContext } from './internal/estimate.js';
import { isInstructionRole } from './govern-target.js';

/** Options of {@link snipHistory}. */
export interface SnipHistoryOptions extends EstimateContext {
  /** The input budget ({@link inputBudget}); `<= 0` turns snipping off. */
  budget: number;
  /**
   * `'reference'` keeps the reference's result even when it overflows (a tool loop with no
   * user message inside the budget-sized tail is then never trimmed). Default `'fixed'`.
   */
  compat?: 'fixed' | 'reference';
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
 * instructions (`system` and `developer` messages) are kept (moved to the front), then the newest messages that fit, starting at
 * a user message and never at an orphaned tool result. Where the reference would still
 * overflow, the default instead keeps the longest tail that starts at a later user message and
 * fits; if even the last user turn overflows (a long tool loop), it keeps that user message and
 * the newest part of the loop that fits, cut at a legal point.
 * Pure: the same array when it already fits; kept messages are the input objects.
 */
export function snipHistory(messages: readonly Message[], options: SnipHistoryOptions): SnipHistoryResult {
  const same: SnipHistoryResult = { messages: messages as Message[], removed: [], loopSnipped: false, laterTurn: false };
  const budget = options.budget;
  if (messages.length === 0 || !(budget > 0)) return same;
  const before = promptTokens(messages, options);
  if (before <= budget) return { ...same, tokensBefore: before, tokensAfter: before };
  // Instructions (`system`, `developer`) are never snipped.
  const system = messages.filter((m) => isInstructionRole(m.role));
  const rest = messages.filter((m) => !isInstructionRole(m.role));
  if (rest.length === 0) return { ...same, tokensBefore: before, tokensAfter: before };

  let systemTokens = 0;
  for (const m of system) systemTokens += messageTokens(m, options);
  const fixed = promptTokens(system, options);
  const remaining = Math.max(0, budget - Math.max(systemTokens, fixed));

  const tail = legalTail(tailFitting(rest, 0, remaining, true, options), rest);
  let out = [...system, ...tail];
  let after = promptTokens(out, options);
  let loopSnipped = false;
  let laterTurn = false;
  if (after > budget && options.compat !== 'reference') {
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
        const candidate = fitLoop(system, rest, anchor, remaining, budget, options);
        if (candidate !== null && candidate.tokens < after) {
          out = candidate.messages;
          after = candidate.tokens;
          loopSnipped = true;
        }
      }
    }
  }
  const keptSet = new Set(out);
  return { messages: out, removed: messages.filter((m) => !keptSet.has(m)), loopSnipped, laterTurn, tokensBefore: before, tokensAfter: after };
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
): { messages: Message[]; tokens: number } | null {
  const user = rest[anchor];
  let room = remaining - messageTokens(user, options);
  let best: { messages: Message[]; tokens: number } | null = null;
  // Per-message estimates differ slightly from the whole-prompt estimate (joins, images), so
  // the room is tightened by the overshoot until the exact estimate fits.
  for (let attempt = 0; attempt < 8; attempt++) {
    const tail = tailFitting(rest, anchor + 1, Math.max(0, room), false, options);
    const start = findLegalMessageStart(tail);
    const legal = start > 0 ? tail.slice(start) : tail;
    const msgs = [...system, user, ...legal];
    const tokens = promptTokens(msgs, options);
    if (best === null || tokens < best.tokens) best = { messages: msgs, tokens };
    if (tokens <= budget || legal.length === 0) break;
    room -= tokens - budget + 1;
  }
  return best;
}
