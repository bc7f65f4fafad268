// The structure scan (steps/repair/structure-scan.ts) resumed across calls, per history (keyed
// by its first message): a runner governs the same history again with a few messages appended,
// and only the new messages are scanned (the old ones are verified by identity, a pointer
// comparison each).
import type { Message } from '@nanobot/schema';
import { initialScanState, scanStep, scanVerdict, type ScanState, type StructureVerdict } from '../steps/repair/structure-scan.js';
import type { CallClock } from './call-clock.js';
import { ListSnapshot } from './list-snapshot.js';

interface Scanned {
  /** The list scanned (a copy: callers may push to their array between calls). */
  list: ListSnapshot;
  state: ScanState;
}

/** One Governor's resumable scans. */
export class ScanMemo {
  readonly #clock: CallClock;
  readonly #byHead = new WeakMap<Message, Scanned>();

  constructor(clock: CallClock) {
    this.#clock = clock;
  }

  /** `structureScan(messages)`, resumed after the part scanned last time. */
  scan(messages: readonly Message[]): StructureVerdict {
    if (messages.length === 0) return { clean: true, openTail: null };
    const first = messages[0];
    if (first === null || typeof first !== 'object') return { clean: false, openTail: null };
    const kept = this.#byHead.get(first);
    let state: ScanState;
    let list: ListSnapshot;
    let from = 0;
    if (kept !== undefined && kept.state.clean && kept.list.length <= messages.length && kept.list.commonPrefix(messages) === kept.list.length) {
      from = kept.list.length;
      list = kept.list;
      // The open set is consumed by the scan: resume on a copy so the kept state stays right.
      state = kept.state.open !== null ? { ...kept.state, open: new Set(kept.state.open) } : kept.state;
    } else {
      list = new ListSnapshot(this.#clock);
      state = initialScanState();
    }
    for (let i = from; i < messages.length && state.clean; i++) scanStep(state, messages[i], i);
    // Updated in place: a repeated list allocates nothing, a grown one only its new slots.
    list.update(messages, from);
    this.#byHead.set(first, { list, state });
    return scanVerdict(state);
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#byHead.delete(head);
  }
}
