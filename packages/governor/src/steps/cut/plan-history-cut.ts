import type { Message } from '@nanobot/schema';
import { locateCutPlan, type CutPlan } from './cut-plan.js';
import { promptTokens, type EstimateContext } from '../../sizing/estimate.js';
import type { DerivationCache } from '../derivation-cache.js';
import { declareCallIds, resultId } from '../../internal/tool-calls.js';
import { anchorGroupEnd, newestServerAnchor, type ServerAnchorDecision } from './server-compaction-anchor.js';

/** Options of {@link planHistoryCut}. */
export interface PlanHistoryCutOptions extends EstimateContext {
  /** The input budget; the kept copy fits it whenever any legal cut does. */
  budget: number;
  /** The previous request's plan: re-applied while its copy fits, else the new cut is later. */
  plan?: CutPlan | null;
  /**
   * A fresh cut keeps the longest legal tail within this share of the budget left after the
   * instructions and tools (1: the tightest cut, as much history as fits).
   */
  ratio: number;
  /** Where message fingerprints are kept (see {@link locateCutPlan}). */
  derive?: DerivationCache;
  /**
   * Index in `rest` of the step the model waits on (see `pendingStep`): no cut starts after it,
   * so that step is kept whole even when the copy then does not fit (the default mode shortened
   * its results first). Absent: every cut may be chosen.
   */
  keepFrom?: number;
}

/** A cut: `system + rest[anchor] + rest[start..]` (the anchor once when `anchor === start`). */
export interface HistoryCut {
  messages: Message[];
  tokens: number;
  start: number;
  anchor: number;
  /** Whether the plan was re-applied. */
  reused: boolean;
  /**
   * How the newest server compaction anchor decided the cut: the cut starts at it (what
   * precedes it, which the server ignores, is not kept), or it is kept in front of a later
   * start; null when it did not (none, or a re-applied plan that keeps more).
   */
  serverAnchor: ServerAnchorDecision | null;
  /** Position in `rest` of the anchor kept in front of `start` (with `serverAnchor: 'anchor-kept'`). */
  serverAnchorAt?: number;
}

/** The newest server compaction anchor of `rest`: its position and the end of its group (-1, -1: none). */
interface AnchorSpan {
  at: number;
  end: number;
}

function anchorSpan(rest: readonly Message[]): AnchorSpan {
  const at = newestServerAnchor(rest);
  return at < 0 ? { at: -1, end: -1 } : { at, end: anchorGroupEnd(rest, at) };
}

/** `legal[s]`: `rest.slice(s)` holds no tool result whose call is before `s` (or missing). */
function legalStarts(rest: readonly Message[]): boolean[] {
  const declaredAt = new Map<string, number>();
  const callAt: number[] = new Array<number>(rest.length).fill(Number.POSITIVE_INFINITY);
  for (let i = 0; i < rest.length; i++) {
    const m = rest[i];
    if (m.role === 'assistant') {
      const ids = new Set<string>();
      declareCallIds(m, ids);
      for (const id of ids) declaredAt.set(id, i);
    } else if (m.role === 'tool') {
      const id = resultId(m);
      if (id !== null) callAt[i] = declaredAt.get(id) ?? -1;
    }
  }
  const legal = new Array<boolean>(rest.length + 1).fill(true);
  let min = Number.POSITIVE_INFINITY;
  for (let s = rest.length - 1; s >= 0; s--) {
    min = Math.min(min, callAt[s]);
    legal[s] = min >= s;
  }
  return legal;
}

/**
 * Cut candidates from the longest kept history to the shortest: every legal user turn start,
 * then (inside the last user turn) every legal assistant step with that user message kept in
 * front, then that user message alone.
 */
function candidates(rest: readonly Message[], legal: readonly boolean[], from: number, keepFrom: number, server: AnchorSpan): { start: number; anchor: number }[] {
  // The newest user turn: its user message (a Responses compaction item, a user-side anchor, is not one).
  let last = -1;
  for (let i = rest.length - 1; i >= 0; i--) if (rest[i].role === 'user' && i !== server.at) { last = i; break; }
  if (last < 0) return [];
  const out: { start: number; anchor: number }[] = [];
  // A server compaction anchor in a past turn: the server ignores what precedes it, so no cut
  // keeps any of that (the cut at the anchor itself comes first); one in the current turn's
  // loop leaves that turn's user message in front, as any loop cut does.
  if (server.at >= 0) {
    if (server.at <= last && from <= server.at && legal[server.at] && rest[server.at].role !== 'user') out.push({ start: server.at, anchor: server.at });
    from = Math.max(from, server.at <= last ? server.at : last + 1);
  }
  for (let u = from; u <= last; u++) if (rest[u].role === 'user' && legal[u]) out.push({ start: u, anchor: u });
  for (let a = Math.max(from, last + 1); a < rest.length && a <= keepFrom; a++) if ((rest[a].role === 'assistant' || a === server.at) && legal[a]) out.push({ start: a, anchor: last });
  if (rest.length > last + 1 && rest.length >= from && rest.length <= keepFrom) out.push({ start: rest.length, anchor: last });
  return out;
}

/**
 * The copy of a cut: the instructions, the user message kept in front (`anchor`, when before
 * `start`), the newest server compaction anchor's group when it is before `start`, in their
 * order, then `rest[start..]`.
 */
function copyOf(system: readonly Message[], rest: readonly Message[], start: number, anchor: number, server: AnchorSpan): Message[] {
  const pinned = server.at >= 0 && server.end <= start && server.at !== anchor;
  if (!pinned) return anchor === start ? [...system, ...rest.slice(start)] : [...system, rest[anchor], ...rest.slice(start)];
  const group = rest.slice(server.at, server.end);
  const front = anchor === start ? group : anchor < server.at ? [rest[anchor], ...group] : [...group, rest[anchor]];
  return [...system, ...front, ...rest.slice(start)];
}

/** How the server anchor decided a cut at `start` (see {@link HistoryCut.serverAnchor}). */
function anchorDecision(server: AnchorSpan, start: number, reused: boolean): Pick<HistoryCut, 'serverAnchor' | 'serverAnchorAt'> {
  if (server.at < 0) return { serverAnchor: null };
  if (server.end <= start) return { serverAnchor: 'anchor-kept', serverAnchorAt: server.at };
  return { serverAnchor: start === server.at && !reused ? 'cut-at-anchor' : null };
}

/**
 * Chooses where to cut an over-budget history so the cut stays put while the history grows:
 * the plan's cut again while its copy fits, else the longest legal tail within `ratio` of the
 * room (so the next turns fit behind it), else the longest that fits at all, else the shortest
 * legal copy — at turn starts while the last turn fits whole, else at its tool steps. Every size is a whole-prompt count (the exact counter when there is one), found
 * by binary search over the candidates: O(log n) counts. Null when the history holds no user
 * message (the caller's fallback handles it). Pure.
 */
export function planHistoryCut(system: readonly Message[], rest: readonly Message[], options: PlanHistoryCutOptions): HistoryCut | null {
  const legal = legalStarts(rest);
  const server = anchorSpan(rest);
  let from = 0;
  if (options.plan) {
    const at = locateCutPlan(options.plan, rest, options.derive);
    if (at !== null && legal[at.start] && (at.anchor < at.start || at.start < rest.length)) {
      const messages = copyOf(system, rest, at.start, at.anchor, server);
      const tokens = promptTokens(messages, options);
      if (tokens <= options.budget) return { messages, tokens, start: at.start, anchor: at.anchor, reused: true, ...anchorDecision(server, at.start, true) };
      from = at.start;
    }
  }
  const keepFrom = options.keepFrom ?? rest.length;
  let list = candidates(rest, legal, from, keepFrom, server);
  if (list.length === 0 && from > 0) list = candidates(rest, legal, 0, keepFrom, server);
  if (list.length === 0) return null;

  const sizes = new Map<number, { messages: Message[]; tokens: number }>();
  const at = (i: number): { messages: Message[]; tokens: number } => {
    let hit = sizes.get(i);
    if (hit === undefined) {
      const messages = copyOf(system, rest, list[i].start, list[i].anchor, server);
      hit = { messages, tokens: promptTokens(messages, options) };
      sizes.set(i, hit);
    }
    return hit;
  };
  // Sizes shrink along the list (each candidate drops whole messages, each worth at least the
  // per-message overhead), so the first candidate within a limit is a binary search away; the
  // one returned was counted and fits.
  // The current turn is only cut into when it does not fit whole: then among its tool steps,
  // else among the turn starts.
  const turns = list.findIndex((c) => c.anchor !== c.start);
  const turnCount = turns < 0 ? list.length : turns;
  const [first, end] = turnCount > 0 && (turnCount === list.length || at(turnCount - 1).tokens <= options.budget) ? [0, turnCount] : [turnCount, list.length];
  const firstWithin = (limit: number): number => {
    let lo = first;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (at(mid).tokens <= limit) hi = mid;
      else lo = mid + 1;
    }
    return lo < end ? lo : -1;
  };
  let pick = -1;
  if (options.ratio < 1) {
    const fixed = promptTokens(system, options);
    pick = firstWithin(fixed + Math.floor(options.ratio * Math.max(0, options.budget - fixed)));
  }
  if (pick < 0) pick = firstWithin(options.budget);
  if (pick < 0) pick = end - 1;
  const chosen = at(pick);
  return { ...chosen, start: list[pick].start, anchor: list[pick].anchor, reused: false, ...anchorDecision(server, list[pick].start, false) };
}
