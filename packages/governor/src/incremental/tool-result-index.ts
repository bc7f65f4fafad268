// Where each tool result's call id sits in a history, kept from one call to the next: in-flight
// compaction re-applies the run's earlier decisions to every result whose id it recorded, and
// the report names them, which would otherwise read every message of the history on every
// request. The index is resumed after the prefix the list shares with the last one (a pointer
// pass, no message read), so a growing history costs what was appended.
import type { Message } from '@nanobot/schema';
import { resultId } from '../internal/tool-calls.js';
import type { ToolResultLocator } from '../steps/size/compact-inflight-overflow.js';
import type { CallClock } from './call-clock.js';
import { ListSnapshot } from './list-snapshot.js';

interface Indexed {
  list: ListSnapshot;
  /** Per slot: the result's call id (`resultId`), null for other messages. */
  idAt: (string | null)[];
  /** Per call id: its slots, ascending. */
  byId: Map<string, number[]>;
}

/** One Governor's tool-result indexes, per history (keyed by its first message). */
export class ToolResultIndexes {
  readonly #clock: CallClock;
  readonly #byHead = new WeakMap<Message, Indexed>();
  /** Answers given (a test checks the memo is really used). */
  hits = 0;

  constructor(clock: CallClock) {
    this.#clock = clock;
  }

  /** A {@link ToolResultLocator} answering from the index of `messages` (brought up to date on its first question). */
  locator(messages: readonly Message[]): ToolResultLocator {
    let x: Indexed | null = null;
    const at = (ids: Iterable<string>): number[] => {
      x ??= this.#indexed(messages);
      const out: number[] = [];
      for (const id of ids) {
        const slots = x.byId.get(id);
        if (slots !== undefined) for (const i of slots) out.push(i);
      }
      this.hits++;
      return out.sort((a, b) => a - b);
    };
    return { resultsOf: at };
  }

  #indexed(messages: readonly Message[]): Indexed {
    // An empty list (a history whose repairs left nothing) has no results and no key to keep them under.
    if (messages.length === 0) return { list: new ListSnapshot(this.#clock), idAt: [], byId: new Map() };
    const head = messages[0];
    let x = this.#byHead.get(head);
    if (x === undefined) {
      x = { list: new ListSnapshot(this.#clock), idAt: [], byId: new Map() };
      this.#byHead.set(head, x);
    }
    const shared = x.list.commonPrefix(messages);
    // Slots past the shared prefix are the last of their id's (ascending) slots: drop them from the end.
    for (let i = x.idAt.length - 1; i >= shared; i--) {
      const id = x.idAt[i];
      if (id === null) continue;
      const slots = x.byId.get(id)!;
      slots.pop();
      if (slots.length === 0) x.byId.delete(id);
    }
    x.idAt.length = Math.min(shared, x.idAt.length);
    for (let i = shared; i < messages.length; i++) {
      const m = messages[i];
      const id = m.role === 'tool' ? resultId(m) : null;
      x.idAt.push(id);
      if (id === null) continue;
      const slots = x.byId.get(id);
      if (slots === undefined) x.byId.set(id, [i]);
      else slots.push(i);
    }
    x.list.update(messages, shared);
    return x;
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#byHead.delete(head);
  }
}
