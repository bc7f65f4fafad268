// The last prompt estimates per history (keyed by its first message): a govern call estimates
// its input and a copy or two (backfilled, merged turns, compacted results, the cut copy), and
// the next call the same lists again. Recognising a list by a pass over two pointer arrays is
// cheaper than the schema's walk memo, which also holds each message's fields. Used only
// without an exact counter (whose answers are not ours to keep).
//
// The schema's own provider estimators are additive (a prompt is a constant for the reply
// priming and the tools, plus each message's count), so a list the memo has not seen is
// estimated from the known list it shares the longest prefix with — its estimate, minus the
// counts of the messages after the prefix, plus the new ones — or, when that is longer, from
// the constant and its own messages. A 100,000-message history whose in-flight results were
// compacted then costs what changed, not a walk of the history (or the schema memo's copy of
// it). Counts per message come from the estimator, cached per object there.
import { createEstimator, type Message, type TokenEstimator } from '@nanobot/schema';
import type { EstimateMemo } from '../sizing/estimate.js';
import type { CallClock } from './call-clock.js';
import { ListSnapshot } from './list-snapshot.js';

interface KnownEstimate {
  list: ListSnapshot;
  estimator: TokenEstimator | null;
  tools: readonly object[] | null;
  toolItems: readonly object[];
  tokens: number;
}

// A call estimates up to six lists per history (input, backfilled, legalized, role order, Mistral's
// and Gemini's inserts and placeholders); fewer slots evict one each call and re-count it in full.
const KNOWN_PER_HEAD = 8;

/**
 * Slots left to count below which no other known list is looked for: a pointer pass over a long
 * list to find a closer one costs more than counting a few messages (their counts are cached).
 */
const GOOD_ENOUGH = 32;

function sameTools(entry: KnownEstimate, tools: readonly object[] | null, estimator: TokenEstimator | null): boolean {
  if (entry.tools !== tools || entry.estimator !== estimator) return false;
  if (tools === null) return true;
  return tools.length === entry.toolItems.length && tools.every((t, i) => t === entry.toolItems[i]);
}

/**
 * Whether `estimator` is one of the schema's provider estimators, whose prompt estimate is
 * exactly `promptTokens([m], tools) − messageTokens(m) + Σ messageTokens` for a non-empty list.
 * An estimator of the caller's own is never assumed to be.
 */
export function additive(estimator: TokenEstimator | null): estimator is TokenEstimator {
  return estimator !== null && estimator.mode === 'provider' && estimator === createEstimator({ tokenizer: estimator.tokenizer });
}

/**
 * The common prefix of entry `i`'s list and the list being estimated, compared at most once per
 * estimate (finding the closest entry, the entry it grew from and the copy's update would each
 * pass over the same two lists otherwise).
 */
type PrefixAt = (i: number) => number;

/**
 * The longest entry whose list `messages` extends (-1: none), among those whose common prefix
 * with it is known without a pass (`free`) or among all of them.
 */
function grownFrom(entries: readonly KnownEstimate[], messages: readonly Message[], free: boolean, prefixAt: PrefixAt): number {
  let slot = -1;
  for (let i = 0; i < entries.length; i++) {
    const list = entries[i].list;
    if (!list.mayPrefix(messages) || (slot >= 0 && list.length <= entries[slot].list.length)) continue;
    const k = free ? list.knownPrefix(messages) : prefixAt(i);
    if (k === list.length) slot = i;
  }
  return slot;
}

/** One Governor's known estimates (see the file comment). */
export class KnownEstimates implements EstimateMemo {
  readonly #clock: CallClock;
  readonly #byHead = new WeakMap<Message, KnownEstimate[]>();

  constructor(clock: CallClock) {
    this.#clock = clock;
  }

  estimate(messages: readonly Message[], tools: readonly object[] | null, estimator: TokenEstimator | null, compute: () => number): number {
    const head = messages[0];
    let entries = this.#byHead.get(head);
    if (entries === undefined) {
      entries = [];
      this.#byHead.set(head, entries);
    }
    if (additive(estimator)) {
      const resumed = this.#resumeOwn(entries, messages, tools, estimator);
      if (resumed >= 0) return resumed;
    }
    // The entry copied from this very array first: a sibling list (a step's output equal to its
    // input but near the end) would cost a pass over the shared prefix before it is rejected.
    // Each entry's common prefix with the list is compared at most once in this estimate.
    const prefixes: (number | undefined)[] = [];
    const prefixAt: PrefixAt = (i) => (prefixes[i] ??= entries[i].list.commonPrefix(messages));
    const n = messages.length;
    // Same length and last slot first: lists a govern call estimates differ mostly near their end.
    const fits = (i: number): boolean => {
      const e = entries[i];
      return sameTools(e, tools, estimator) && e.list.length === n && e.list.at(n - 1) === messages[n - 1] && prefixAt(i) === n;
    };
    const own = entries.findIndex((e) => e.list.madeFrom(messages));
    const hit = own >= 0 && fits(own) ? own : entries.findIndex((_, i) => i !== own && fits(i));
    if (hit >= 0) {
      const e = entries[hit];
      e.list.markSeen(messages);
      if (hit > 0) entries.unshift(...entries.splice(hit, 1));
      return e.tokens;
    }
    const tokens = additive(estimator) ? this.#fromKnown(entries, messages, tools, estimator, own, prefixAt) : compute();
    // The entry copied from this very array is replaced: a memo's own list changed in place keeps
    // one entry, copied in the last call that estimated it — the copy its memo vouches for, where
    // an older one would cost a pass over the whole list every call until evicted.
    let slot = own;
    // A grown list replaces the entry of the list it grew from (only the new slots are copied).
    // The one-slot guess is confirmed: a list that only ends like the entry's (a sibling step's
    // output sharing its last message) must not evict it, or the next call estimates it afresh.
    // Entries known to be a prefix without a pass (the caller's previous list, which the input
    // comparison vouches for) are taken first: a memo's list of the same length ends alike too,
    // and would cost a pass over the whole history to confirm.
    if (slot < 0) slot = grownFrom(entries, messages, true, prefixAt);
    if (slot < 0) slot = grownFrom(entries, messages, false, prefixAt);
    if (slot < 0 && entries.length >= KNOWN_PER_HEAD) slot = entries.length - 1;
    // The slots the copy keeps: known, or compared already; an evicted entry's copy is
    // overwritten instead (writing the slots costs what a pass to find the shared ones would).
    const shared = slot < 0 ? 0 : Math.max(0, prefixes[slot] ?? entries[slot].list.knownPrefix(messages));
    const reused = slot >= 0 ? entries.splice(slot, 1)[0].list : new ListSnapshot(this.#clock);
    reused.update(messages, shared);
    entries.unshift({ list: reused, estimator, tools, toolItems: tools === null ? [] : [...tools], tokens });
    return tokens;
  }

  /**
   * The usual case of a grown history, made cheap: `messages` is a list a memo changes in place
   * (its output, handed on again) and its entry was copied from that very array, so the memo
   * vouches for the copy's prefix and only a few slots differ. The entry is resumed in place and
   * moved to the front: no search among the other entries, no new entry, no second pass. The
   * number is the general path's (the estimate is additive). -1 when the case does not apply.
   */
  #resumeOwn(entries: KnownEstimate[], messages: readonly Message[], tools: readonly object[] | null, estimator: TokenEstimator): number {
    let at = 0;
    while (at < entries.length && !entries[at].list.madeFrom(messages)) at++;
    if (at === entries.length) return -1;
    const e = entries[at];
    if (!sameTools(e, tools, estimator)) return -1;
    const list = e.list;
    const k = list.commonPrefix(messages);
    const n = messages.length;
    // Nothing shared: the general path weighs the other entries and the constant.
    if (k === 0 || list.length - k + (n - k) > GOOD_ENOUGH) return -1;
    let tokens = e.tokens;
    for (let i = k; i < list.length; i++) tokens -= estimator.messageTokens(list.at(i));
    for (let i = k; i < n; i++) tokens += estimator.messageTokens(messages[i]);
    list.update(messages, k);
    e.tokens = tokens;
    for (let i = at; i > 0; i--) entries[i] = entries[i - 1];
    entries[0] = e;
    return tokens;
  }

  /**
   * The additive estimate of `messages` (non-empty), resumed from the closest known list when that
   * is cheaper. `own`: the entry copied from this very array (-1: none), tried first.
   */
  #fromKnown(entries: readonly KnownEstimate[], messages: readonly Message[], tools: readonly object[] | null, estimator: TokenEstimator, own: number, prefixAt: PrefixAt): number {
    const n = messages.length;
    let best: KnownEstimate | null = null;
    let bestCost = n;
    let bestPrefix = 0;
    // Two sweeps: first the entries whose common prefix is known without a pass (the entry of
    // the same array, which its memo vouches for; the caller's previous list, which the input
    // comparison vouches for), which usually leave a few slots to count and so rule out the
    // others; then, only if none did, the others at the price of a pass each.
    for (let sweep = 0; sweep < 2 && bestCost > GOOD_ENOUGH; sweep++) {
      for (let j = own < 0 ? 0 : -1; j < entries.length && bestCost > GOOD_ENOUGH; j++) {
        if (j === own) continue;
        const e = entries[j < 0 ? own : j];
        if (!sameTools(e, tools, estimator)) continue;
        // Cheap rejection first: the lengths' difference is a floor of the cost (slots past the
        // common prefix on either side), so an entry that cannot beat the best is not passed over.
        if (Math.abs(e.list.length - n) >= bestCost) continue;
        const known = e.list.knownPrefix(messages);
        if ((sweep === 0) !== (known >= 0)) continue;
        const k = known >= 0 ? known : prefixAt(j < 0 ? own : j);
        const cost = (e.list.length - k) + (n - k);
        if (cost < bestCost) {
          best = e;
          bestCost = cost;
          bestPrefix = k;
        }
      }
    }
    let total: number;
    let from: number;
    if (best === null) {
      const first = messages[0];
      total = estimator.promptTokens([first], tools)[0] - estimator.messageTokens(first);
      from = 0;
    } else {
      total = best.tokens;
      for (let i = bestPrefix; i < best.list.length; i++) total -= estimator.messageTokens(best.list.at(i));
      from = bestPrefix;
    }
    for (let i = from; i < n; i++) total += estimator.messageTokens(messages[i]);
    return total;
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#byHead.delete(head);
  }
}
