// Where a history's instructions (system / developer messages) are, kept from one call to the
// next: how many lead it, and whether one comes later. The snip memo and the resumed
// shortening read it to cut or copy a history without filtering all of it by role on every
// request; only what was appended since the last call is read.
import type { Message } from '@nanobot/schema';
import { isInstructionRole } from '../steps/target/govern-target.js';
import type { CallClock } from './call-clock.js';
import { ListSnapshot } from './list-snapshot.js';

interface Instructions {
  list: ListSnapshot;
  /** How many instructions lead the list. */
  leading: number;
  /** Index of the first instruction after the leading ones (-1: none). */
  laterAt: number;
}

/** One Governor's instruction positions, per history (keyed by its first message). */
export class LeadingInstructions {
  readonly #clock: CallClock;
  readonly #byHead = new WeakMap<Message, Instructions>();

  constructor(clock: CallClock) {
    this.#clock = clock;
  }

  /** How many instructions lead `messages` (non-empty), or -1 when one comes after the conversation started. */
  of(messages: readonly Message[]): number {
    const head = messages[0];
    let known = this.#byHead.get(head);
    if (known === undefined) {
      known = { list: new ListSnapshot(this.#clock), leading: 0, laterAt: -1 };
      this.#byHead.set(head, known);
    }
    // What the shared prefix says stays; the rest is read again (a grown list: what was appended;
    // a list rewritten near its end, as compaction does: from the first rewritten slot).
    const from = known.list.commonPrefix(messages);
    if (known.leading > from) known.leading = from;
    if (known.laterAt >= from) known.laterAt = -1;
    for (let i = from; i < messages.length && known.laterAt < 0; i++) {
      if (!isInstructionRole(messages[i].role)) continue;
      if (known.leading === i) known.leading++;
      else known.laterAt = i;
    }
    known.list.update(messages, from);
    return known.laterAt >= 0 ? -1 : known.leading;
  }
  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#byHead.delete(head);
  }
}
