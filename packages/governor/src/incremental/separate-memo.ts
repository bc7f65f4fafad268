// The separateToolResultsFromUser step (Mistral, Gemini) resumed per history. The step is a
// left fold: a marked assistant turn goes before each user message that follows a tool message,
// a decision that reads the message and the one before it. So the output and the report entries
// are kept, and the next call resumes where its input leaves the last one (compared by object
// identity): a repeated or grown history costs what was appended, not a scan and a copy of the
// whole list.
import type { Message } from '@nanobot/schema';
import type { ReportedMessage } from '../report/govern-report.js';
import { DeferredEntries, NO_ENTRIES } from '../report/deferred-list.js';
import { frozenRef } from '../report/reported-message.js';
import type { DerivationCache } from '../steps/derivation-cache.js';
import { acknowledgementBefore } from '../steps/target/separate-tool-results-from-user.js';
import type { CallClock } from './call-clock.js';
import { EntryLog } from './entry-log.js';
import { giveRoom } from './list-room.js';
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
  /** The copy of `out` given room to grow (see list-room.ts), once it needed it. */
  roomed: Message[] | null;
  /** Per inserted turn (input order): the input index it goes before. */
  before: number[];
  /** The inserted turns' report entries, made from `before` and `out` when a list that holds them is read. */
  entries: EntryLog;
}

/**
 * The report entry of inserted turn `c`, read where it stands: turn `c` went before input
 * `before[c]`, after that many inputs and the `c` turns inserted before it. The output only grows
 * by appending while the turn is kept, and a rewind cuts the log back before the output.
 */
function insertedEntry(memo: SeparateMemo, c: number): ReportedMessage {
  const at = memo.before[c] + c;
  return frozenRef(memo.out![at], at, 'assistant-after-tool-results');
}

function fresh(clock: CallClock): SeparateMemo {
  const memo: SeparateMemo = { input: new ListSnapshot(clock), out: null, outCall: 0, roomed: null, before: [], entries: new EntryLog((c) => insertedEntry(memo, c)) };
  return memo;
}

/** Rewinds the fold to its state after the first `k` inputs. */
function rewind(memo: SeparateMemo, k: number): void {
  let c = memo.before.length;
  while (c > 0 && memo.before[c - 1] >= k) c--;
  // The log first: it makes what a handed-out list still reads of the turns that go, from the output.
  memo.entries.truncate(c);
  memo.before.length = c;
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
      memo.entries.growTo(memo.before.length);
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
    const memo = resumed.memo ?? fresh(this.#clock);
    const before = memo.out;
    const stable = before === null ? 0 : before.length;
    fold(memo, messages, from, this.#derive);
    giveRoom(memo);
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
