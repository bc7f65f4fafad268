// The last prompt estimates per history (keyed by its first message): a govern call estimates
// its input and a copy or two (backfilled, merged turns, the cut copy), and the next call the
// same lists again. Recognising a list by a pass over two pointer arrays is cheaper than the
// schema's walk memo, which also holds each message's fields. Used only without an exact counter
// (whose answers are not ours to keep).
import type { Message, TokenEstimator } from '@nanobot/schema';
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

const KNOWN_PER_HEAD = 3;

function sameTools(entry: KnownEstimate, tools: readonly object[] | null, estimator: TokenEstimator | null): boolean {
  if (entry.tools !== tools || entry.estimator !== estimator) return false;
  if (tools === null) return true;
  return tools.length === entry.toolItems.length && tools.every((t, i) => t === entry.toolItems[i]);
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
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      if (sameTools(e, tools, estimator) && e.list.equals(messages)) {
        e.list.update(messages, messages.length); // no copying: marks it as seen in this call
        if (i > 0) entries.unshift(...entries.splice(i, 1));
        return e.tokens;
      }
    }
    const tokens = compute();
    // A grown list replaces the entry of the list it grew from (only the new slots are copied).
    let slot = -1;
    for (let i = 0; i < entries.length; i++) if (entries[i].list.mayPrefix(messages) && (slot < 0 || entries[i].list.length > entries[slot].list.length)) slot = i;
    if (slot < 0 && entries.length >= KNOWN_PER_HEAD) slot = entries.length - 1;
    const reused = slot >= 0 ? entries.splice(slot, 1)[0].list : new ListSnapshot(this.#clock);
    reused.update(messages, reused.commonPrefix(messages));
    entries.unshift({ list: reused, estimator, tools, toolItems: tools === null ? [] : [...tools], tokens });
    return tokens;
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#byHead.delete(head);
  }
}
