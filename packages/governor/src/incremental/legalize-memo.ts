// The governor's legalizeForTarget step resumed per history and target. The step is a left fold
// (each message kept, dropped or replaced by its remembered verdict, which depends only on the
// message and on whether the conversation started before it), so the fold's output and report
// entries are kept and the next call resumes where its input leaves the last one (compared by
// object identity): a repeated or grown history costs a pointer pass over the shared part
// instead of a verdict lookup per message. Histories with call ids Anthropic rejects (renamed
// across the whole list) take the plain function.
import type { Message } from '@nanobot/schema';
import type { ReportedMessage } from '../report/govern-report.js';
import type { GovernTarget } from '../steps/target/govern-target.js';
import { isInstructionRole } from '../steps/target/govern-target.js';
import type { DerivationCache } from '../steps/derivation-cache.js';
import { badIds, legalizeWithEntries, verdict } from '../steps/target/legalize-for-target.js';
import { TARGET_PROFILES } from '../steps/target/profiles/index.js';
import { ref } from '../report/reported-message.js';
import type { CallClock } from './call-clock.js';
import { ListSnapshot } from './list-snapshot.js';

/** The step's output with its report entries (input indices for removed, output for added). */
export interface ReportedLegalization {
  messages: Message[];
  removed: ReportedMessage[];
  added: ReportedMessage[];
}

interface LegalizeMemo {
  input: ListSnapshot;
  /** Index of the first non-instruction message, or the input length when there is none yet. */
  firstTurn: number;
  /** The output so far, or null while it equals the input. */
  out: Message[] | null;
  /** The call that last handed `out` out (downstream memos took their copies of it then). */
  outCall: number;
  /** Per change (input order): input index, output length after it, report entries (frozen). */
  changeIndex: number[];
  outLenAfter: number[];
  removed: ReportedMessage[];
  added: (ReportedMessage | null)[];
}

function fresh(clock: CallClock): LegalizeMemo {
  return { input: new ListSnapshot(clock), firstTurn: 0, out: null, outCall: 0, changeIndex: [], outLenAfter: [], removed: [], added: [] };
}

/** Rewinds the fold to its state after the first `k` inputs. */
function rewind(memo: LegalizeMemo, k: number): void {
  let c = memo.changeIndex.length;
  while (c > 0 && memo.changeIndex[c - 1] >= k) c--;
  memo.changeIndex.length = c;
  memo.outLenAfter.length = c;
  memo.removed.length = c;
  memo.added.length = c;
  if (c === 0) memo.out = null;
  else if (memo.out !== null) memo.out.length = memo.outLenAfter[c - 1] + (k - 1 - memo.changeIndex[c - 1]);
  if (memo.firstTurn > k) memo.firstTurn = k;
}

function fold(memo: LegalizeMemo, messages: readonly Message[], from: number, target: GovernTarget, derive: DerivationCache): void {
  let started = memo.firstTurn < from;
  for (let i = from; i < messages.length; i++) {
    const msg = messages[i];
    const v = verdict(msg, target, started, derive);
    if (!started && !isInstructionRole(msg.role)) {
      started = true;
      memo.firstTurn = i;
    }
    if (v.reason === null) {
      memo.out?.push(msg);
      continue;
    }
    memo.out ??= messages.slice(0, i);
    memo.changeIndex.push(i);
    memo.removed.push(Object.freeze({ ...ref(msg, i), reason: v.reason }));
    memo.added.push(v.out === null ? null : Object.freeze({ ...ref(v.out, memo.out.length), reason: v.reason }));
    if (v.out !== null) memo.out.push(v.out);
    memo.outLenAfter.push(memo.out.length);
  }
  if (!started) memo.firstTurn = messages.length;
}

/** One Governor's resumed legalisations, per target and history. */
export class LegalizeMemos {
  readonly #clock: CallClock;
  readonly #derive: DerivationCache;
  readonly #byTarget = new Map<GovernTarget, WeakMap<Message, LegalizeMemo>>();

  constructor(clock: CallClock, derive: DerivationCache) {
    this.#clock = clock;
    this.#derive = derive;
  }

  /**
   * `legalizeWithEntries(messages, target)` resumed from the last call on the same history. Same
   * result; the same array when nothing changes, else possibly a list the memo owns (changed by
   * the next call: only govern's later steps may read it).
   */
  run(messages: readonly Message[], target: GovernTarget): ReportedLegalization {
    const n = messages.length;
    if (n === 0) return { messages: messages as Message[], removed: [], added: [] };
    let byHead = this.#byTarget.get(target);
    if (byHead === undefined) {
      byHead = new WeakMap();
      this.#byTarget.set(target, byHead);
    }
    const head = messages[0];
    let memo = byHead.get(head);
    let from = 0;
    if (memo !== undefined) {
      from = memo.input.commonPrefix(messages);
      if (from === 0) memo = undefined;
      else if (from < memo.input.length) rewind(memo, from);
    }
    const pattern = TARGET_PROFILES[target].toolCallIdPattern;
    // Ids the target rejects are renamed across the whole list: the plain step does that.
    if (pattern !== null && badIds(from === 0 ? messages : messages.slice(from), pattern, this.#derive) !== null) {
      byHead.delete(head);
      return legalizeWithEntries(messages, target, this.#derive);
    }
    memo ??= fresh(this.#clock);
    const before = memo.out;
    const stable = before === null ? 0 : before.length;
    fold(memo, messages, from, target, this.#derive);
    memo.input.update(messages, from);
    byHead.set(head, memo);
    if (memo.out === null) return { messages: messages as Message[], removed: [], added: [] };
    // The output's first `stable` slots are what the later steps' memos copied last time.
    if (memo.out === before) this.#clock.vouch(memo.out, memo.out, memo.outCall, stable);
    memo.outCall = this.#clock.active;
    const added: ReportedMessage[] = [];
    for (const a of memo.added) if (a !== null) added.push(a);
    // The memo's own list (govern copies it if it becomes the result).
    return { messages: this.#clock.markShared(memo.out), removed: memo.removed.slice(), added };
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    for (const byHead of this.#byTarget.values()) byHead.delete(head);
  }
}
