// The separateToolResultsFromUser step (Mistral, Gemini) resumed per history. The step is a
// left fold: a marked assistant turn goes before each user message that follows a tool message,
// a decision that reads the message and the one before it. So the output and the report entries
// are kept, and the next call resumes where its input leaves the last one (compared by object
// identity): a repeated or grown history costs what was appended, not a scan and a copy of the
// whole list.
import type { Message } from '@nanobot/schema';
import type { ReportedMessage } from '../report/govern-report.js';
import { DeferredEntries, NO_ENTRIES } from '../report/deferred-list.js';
import { ref } from '../report/reported-message.js';
import type { DerivationCache } from '../steps/derivation-cache.js';
import { acknowledgementBefore } from '../steps/target/separate-tool-results-from-user.js';
import type { CallClock } from './call-clock.js';
import { EntryLog } from './entry-log.js';
import { ListSnapshot } from './list-snapshot.js';
import { resumeFold } from './resume-fold.js';

/** The step's output with its report entries (output indices of the added turns). */
export interface ReportedSeparation {
  messages: Message[];
  removed: ReportedMessage[];
  added: ReportedMessage[];
}

interface SeparateMemo {
  input: ListSnapshot;
  /** The output so far, or null while it equals the input (nothing inserted). */
  out: Message[] | null;
  /** The call that last handed `out` out. */
  outCall: number;
  /** Per inserted turn (input order): the input index it goes before, its report entry (frozen). */
  before: number[];
  entries: EntryLog;
}

/** Rewinds the fold to its state after the first `k` inputs. */
function rewind(memo: SeparateMemo, k: number): void {
  let c = memo.before.length;
  while (c > 0 && memo.before[c - 1] >= k) c--;
  memo.before.length = c;
  memo.entries.truncate(c);
  if (c === 0) memo.out = null;
  else if (memo.out !== null) memo.out.length = k + c;
}

function fold(memo: SeparateMemo, messages: readonly Message[], from: number, derive: DerivationCache): void {
  for (let i = Math.max(from, 1); i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'user' && messages[i - 1].role === 'tool') {
      memo.out ??= messages.slice(0, i);
      const turn = acknowledgementBefore(m, derive);
      memo.before.push(i);
      memo.entries.push(Object.freeze(ref(turn, memo.out.length, 'assistant-after-tool-results')));
      memo.out.push(turn);
    }
    memo.out?.push(m);
  }
}

/** One Governor's resumed separations, per history. */
export class SeparateMemos {
  readonly #clock: CallClock;
  readonly #derive: DerivationCache;
  readonly #byHead = new WeakMap<Message, SeparateMemo>();

  constructor(clock: CallClock, derive: DerivationCache) {
    this.#clock = clock;
    this.#derive = derive;
  }

  /**
   * `separateToolResultsFromUser(messages)` with its report entries, resumed from the last call
   * on the same history. Same result; the same array when nothing is inserted, else a list the
   * memo owns (changed by the next call: only govern's later steps may read it).
   */
  run(messages: readonly Message[]): ReportedSeparation {
    const n = messages.length;
    if (n === 0) return { messages: messages as Message[], removed: [], added: [] };
    const head = messages[0];
    const resumed = resumeFold(this.#byHead, messages, rewind);
    const from = resumed.from;
    const memo = resumed.memo ?? { input: new ListSnapshot(this.#clock), out: null, outCall: 0, before: [], entries: new EntryLog() };
    const before = memo.out;
    const stable = before === null ? 0 : before.length;
    fold(memo, messages, from, this.#derive);
    memo.input.update(messages, from);
    this.#byHead.set(head, memo);
    if (memo.out === null) return { messages: messages as Message[], removed: [], added: [] };
    // The output's first `stable` slots are what the later steps' memos copied last time.
    if (memo.out === before) this.#clock.vouch(memo.out, memo.out, memo.outCall, stable);
    memo.outCall = this.#clock.active;
    // The entries are listed when the report is read (kept as they are for it).
    return new DeferredEntries(this.#clock.markShared(memo.out), NO_ENTRIES, memo.entries.list());
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#byHead.delete(head);
  }
}
