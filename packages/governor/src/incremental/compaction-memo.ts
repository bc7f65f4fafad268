// In-flight compaction resumed across calls. A long run over budget re-applies its earlier
// compactions on every request and compacts the newest results: the plain step copies the whole
// history for that (and once more per count it weighs), and estimates each copy. Here one list
// per history is kept and updated in place — the slots that changed since the list was last
// handed out, and the appended ones — and the lists weighed are counted from the input's
// estimate by per-message differences (exact for the schema's additive estimators; any other
// estimator or an exact counter takes the plain way). The list vouches for its unchanged
// prefix, so the later steps' memos (the snip, its report entries) skip comparing it: a growing
// over-budget history costs per request what changed, not its length. Same outcome as the plain
// step (the property tests compare them).
import type { Message, TokenEstimator } from '@nanobot/schema';
import { promptTokens, type EstimateContext } from '../sizing/estimate.js';
import type { CompactionEdits, CompactionLists, CompactionListsOf } from '../steps/size/compact-inflight-overflow.js';
import type { CallClock } from './call-clock.js';
import { additive } from './estimate-memo.js';
import { ListSnapshot } from './list-snapshot.js';

interface Compacted {
  /** The last input. */
  input: ListSnapshot;
  /** The memo's list: the last input with the `edited` slots replaced (handed to later steps when it has edits; copied before it leaves govern). */
  out: Message[];
  /** Slots of `out` holding a replacement. */
  edited: number[];
  /** The step's last output (`out`, or the input when nothing was compacted), and the call it was handed out in. */
  handed: readonly Message[] | null;
  handedCall: number;
}

/** One Governor's resumed compactions, per history (keyed by its first message). */
export class InflightCompactions {
  readonly #clock: CallClock;
  readonly #byHead = new WeakMap<Message, Compacted>();

  constructor(clock: CallClock) {
    this.#clock = clock;
  }

  /** The resumed {@link CompactionListsOf} for a call estimating with `estimate`, or null (then the plain one). */
  listsFor(estimate: EstimateContext): CompactionListsOf | null {
    const estimator = estimate.estimator ?? null;
    if ((estimate.tokenCounter ?? null) !== null || !additive(estimator)) return null;
    return (messages, edits, options) => this.#lists(messages, edits, options, estimator);
  }

  #lists(messages: readonly Message[], edits: CompactionEdits, options: EstimateContext, estimator: TokenEstimator): CompactionLists {
    // Running sums of the edits' differences: tokens(count) is the input's estimate plus the first `count`.
    const deltas: number[] = [0];
    return {
      tokens: (count) => {
        const base = promptTokens(messages, options);
        for (let j = deltas.length - 1; j < count; j++) deltas.push(deltas[j] + estimator.messageTokens(edits.next[j]) - estimator.messageTokens(messages[edits.slots[j]]));
        return base + deltas[count];
      },
      list: (count) => this.#output(messages, edits, count),
    };
  }

  /**
   * `messages` with the first `count` edits: the kept list brought up to date in place (the
   * input itself for none). Once a history had edits, its list follows it on every call, so the
   * output can always vouch for the prefix it shares with the last one.
   */
  #output(messages: readonly Message[], edits: CompactionEdits, count: number): Message[] {
    const head = messages[0];
    let memo = this.#byHead.get(head);
    if (memo === undefined) {
      if (count === 0) return messages as Message[];
      memo = { input: new ListSnapshot(this.#clock), out: [], edited: [], handed: null, handedCall: 0 };
      this.#byHead.set(head, memo);
    }
    const { out, input } = memo;
    const replaced = new Map<number, Message>();
    for (let j = 0; j < count; j++) replaced.set(edits.slots[j], edits.next[j]);
    const n = messages.length;
    // Before `shared` the input is the last one: only edited slots, old or new, can differ.
    const shared = Math.min(input.commonPrefix(messages), out.length);
    let first = shared;
    const put = (i: number): void => {
      const v = replaced.get(i) ?? messages[i];
      if (out[i] !== v) {
        out[i] = v;
        if (i < first) first = i;
      }
    };
    for (const i of memo.edited) if (i < shared) put(i);
    for (let j = 0; j < count; j++) if (edits.slots[j] < shared) put(edits.slots[j]);
    const overlap = Math.min(out.length, n);
    for (let i = shared; i < overlap; i++) put(i);
    for (let i = Math.max(shared, overlap); i < n; i++) out.push(replaced.get(i) ?? messages[i]);
    if (out.length > n) out.length = n;
    memo.edited = edits.slots.slice(0, count);
    input.update(messages, shared);
    const output = count === 0 ? (messages as Message[]) : this.#clock.markShared(out);
    // `out` held the last output's content until now: copies the later memos took of the last
    // output share its first `first` slots with this one.
    if (memo.handed !== null) this.#clock.vouch(output, memo.handed, memo.handedCall, first);
    memo.handed = output;
    memo.handedCall = this.#clock.active;
    return output;
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#byHead.delete(head);
  }
}
