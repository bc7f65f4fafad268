// `[...messages, ...fills]` made once per history and fills: the same (memo-owned) list while
// `messages` holds the same objects and `fills` is the same array, so the later steps' memos
// and the estimate recognise it.
import type { Message } from '@nanobot/schema';
import type { CallClock } from './call-clock.js';
import { ListSnapshot } from './list-snapshot.js';

interface Appended {
  input: ListSnapshot;
  fills: readonly Message[];
  list: Message[];
}

/** One Governor's appended lists, per history (keyed by its first message). */
export class AppendedLists {
  readonly #clock: CallClock;
  readonly #byHead = new WeakMap<Message, Appended>();

  constructor(clock: CallClock) {
    this.#clock = clock;
  }

  /** `[...messages, ...fills]`, the same list as last time when nothing changed. */
  append(messages: readonly Message[], fills: readonly Message[]): Message[] {
    const head = messages[0];
    const hit = this.#byHead.get(head);
    if (hit !== undefined && hit.fills === fills && hit.input.equals(messages)) {
      // The next call's comparison of its input with this one then vouches for the copy, where
      // a copy stamped in an older call cost a pass over the whole history on every call that
      // hands the same history again.
      hit.input.markSeen(messages);
      return hit.list;
    }
    const input = hit?.input ?? new ListSnapshot(this.#clock);
    input.update(messages, input.commonPrefix(messages));
    const list = this.#clock.markImmutable(this.#clock.markShared([...messages, ...fills]));
    this.#byHead.set(head, { input, fills, list });
    return list;
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#byHead.delete(head);
  }
}
