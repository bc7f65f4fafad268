// The user-first role step (OpenAI chat, Responses, DeepSeek, OpenRouter) resumed per history.
// A history whose first turn is an assistant's (an agent's greeting, a history cut before a
// user turn) gets the `(conversation continued)` opener before that turn; the step's plain run
// copies the whole history to make room for it on every request. Here the list with the opener
// is kept and brought in step with the input in place: a grown history writes the slots
// appended since the last call (the input compared by object identity, as every memo does).
import type { Message } from '@nanobot/schema';
import type { ReportedMessage } from '../report/govern-report.js';
import { ref } from '../report/reported-message.js';
import type { DerivationCache } from '../steps/derivation-cache.js';
import { continuedTurnBefore } from '../steps/target/enforce-role-alternation.js';
import { isInstructionRole } from '../steps/target/govern-target.js';
import type { CallClock } from './call-clock.js';
import { ListSnapshot } from './list-snapshot.js';
import { listWithOpener, syncListWithOpener } from './opener-list.js';

/** The step's output with its report entries (the opener, when one was placed). */
export interface ReportedUserFirst {
  messages: Message[];
  removed: ReportedMessage[];
  added: ReportedMessage[];
}

interface UserFirstMemo {
  input: ListSnapshot;
  /** Index of the first turn (after the instructions) and the opener placed before it. */
  first: number;
  opener: Message;
  /** The input with the opener at `first`: input slot `i` stands at `i` before `first`, at `i + 1` from it. */
  out: Message[];
  /** The call that last handed `out` out (copies later memos took of it then share its unchanged slots). */
  outCall: number;
}

/** One Governor's resumed user-first lists, per history (keyed by its first message). */
export class UserFirstMemos {
  readonly #clock: CallClock;
  readonly #derive: DerivationCache;
  readonly #byHead = new WeakMap<Message, UserFirstMemo>();

  constructor(clock: CallClock, derive: DerivationCache) {
    this.#clock = clock;
    this.#derive = derive;
  }

  /**
   * `userFirst(messages)` with its report entries, resumed from the last call on the same
   * history. Same result; the same array when the first turn is a user's, else a list the memo
   * owns (changed by the next call: only govern's later steps may read it).
   */
  run(messages: readonly Message[]): ReportedUserFirst {
    const n = messages.length;
    let first = 0;
    while (first < n && isInstructionRole(messages[first].role)) first++;
    if (first === n || messages[first].role === 'user') return { messages: messages as Message[], removed: [], added: [] };
    const opener = continuedTurnBefore(messages[first], this.#derive);
    const head = messages[0];
    const memo = this.#byHead.get(head);
    // The slots before the first turn, and the first turn itself, must be as they were.
    const k = memo !== undefined && memo.first === first && memo.opener === opener ? memo.input.commonPrefix(messages) : 0;
    let out: Message[];
    if (memo === undefined || k <= first) {
      out = listWithOpener(messages, opener, first, n);
      this.#byHead.set(head, { input: makeSnapshot(this.#clock, messages), first, opener, out, outCall: this.#clock.active });
    } else {
      out = memo.out;
      // Copies later steps took of it when it was last handed out share the slots before the first change.
      this.#clock.vouch(out, out, memo.outCall, syncListWithOpener(out, messages, first, k, n));
      memo.outCall = this.#clock.active;
      memo.input.update(messages, k);
    }
    return { messages: this.#clock.markShared(out), removed: [], added: [ref(opener, first, 'conversation-continued')] };
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#byHead.delete(head);
  }
}

function makeSnapshot(clock: CallClock, messages: readonly Message[]): ListSnapshot {
  const snapshot = new ListSnapshot(clock);
  snapshot.update(messages, 0);
  return snapshot;
}
