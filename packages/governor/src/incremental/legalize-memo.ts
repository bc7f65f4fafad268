// The governor's legalizeForTarget step resumed per history and target. The step is a left fold
// (each message's ids renamed when the target rejects them, each id named where it first
// appears; then the message kept, dropped or replaced by its remembered verdict, which depends
// only on the message and on whether the conversation started before it), so the fold's state
// (output, report entries, id map) is kept and the next call resumes where its input leaves the
// last one (compared by object identity): a repeated or grown history costs a pointer pass over
// the shared part instead of a verdict lookup per message, Mistral's renamed ids included.
import type { Message } from '@nanobot/schema';
import type { ReportedMessage, TargetChangeReason } from '../report/govern-report.js';
import type { GovernTarget } from '../steps/target/govern-target.js';
import { isInstructionRole } from '../steps/target/govern-target.js';
import type { DerivationCache } from '../steps/derivation-cache.js';
import { idMapFrom, legalizeMessage } from '../steps/target/legalize-for-target.js';
import type { ToolCallIdMap } from '../steps/target/tool-call-id-map.js';
import { DeferredEntries } from '../report/deferred-list.js';
import { ref } from '../report/reported-message.js';
import type { CallClock } from './call-clock.js';
import { EntryLog } from './entry-log.js';
import { ListSnapshot } from './list-snapshot.js';
import { resumeFold } from './resume-fold.js';

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
  /**
   * Per change (input order): its input index and why. The report entries are made from these
   * when a report is read (most never are): an entry per change made in the fold kept two frozen
   * objects per renamed message alive, Mistral's every tool message. The message changed and
   * what replaced it are not kept beside them: they stand in the input copy and the output at
   * slots that stay as they are while the change is kept (see `changedAt`), and two more list
   * slots per change were each grown history's new ones to keep for good.
   */
  changeIndex: number[];
  changeReason: TargetChangeReason[];
  /** How many changes have their entries in `removed` / `added` (the rest are made when read). */
  logged: number;
  removed: EntryLog;
  /** The added entries (changes that dropped a message have none) and, per change, how many there are after it. */
  added: EntryLog;
  addedAfter: number[];
  /** The fold's id renaming, once it met an id the target rejects (null before). */
  ids: ToolCallIdMap | null;
}

function fresh(clock: CallClock): LegalizeMemo {
  return {
    input: new ListSnapshot(clock), firstTurn: 0, out: null, outCall: 0, changeIndex: [],
    changeReason: [], logged: 0, removed: new EntryLog(), added: new EntryLog(), addedAfter: [], ids: null,
  };
}

/** The output length after change `c`: every input before it kept one slot, every change before it 0 or 1. */
function outLenAfter(memo: LegalizeMemo, c: number): number {
  return memo.changeIndex[c] - c + memo.addedAfter[c];
}

/**
 * Change `c`'s input message and what replaced it (null: dropped). Both are read where they
 * stand: the input copy and the output only grow by appending while a change is kept, and a
 * rewind makes the entries of every change before cutting either back (and before the copy is
 * updated), so the slots still hold what the change saw and made.
 */
function changedAt(memo: LegalizeMemo, c: number): { from: Message; to: Message | null } {
  const kept = memo.addedAfter[c] > (c === 0 ? 0 : memo.addedAfter[c - 1]);
  return { from: memo.input.at(memo.changeIndex[c]), to: kept ? memo.out![outLenAfter(memo, c) - 1] : null };
}

/** Makes the report entries of the changes before `upTo` (at most all of them) that are not made yet. */
function logEntries(memo: LegalizeMemo, upTo: number): void {
  const end = Math.min(upTo, memo.changeIndex.length);
  for (let c = memo.logged; c < end; c++) {
    const reason = memo.changeReason[c];
    const { from, to } = changedAt(memo, c);
    memo.removed.push(Object.freeze(ref(from, memo.changeIndex[c], reason)));
    if (to !== null) memo.added.push(Object.freeze(ref(to, outLenAfter(memo, c) - 1, reason)));
  }
  if (end > memo.logged) memo.logged = end;
}

/** Rewinds the fold to its state after the first `k` inputs. */
function rewind(memo: LegalizeMemo, k: number): void {
  // Lists handed out may still be built from the changes about to go: their entries are made
  // first (the logs keep what a handed-out list reads when they are cut back).
  logEntries(memo, memo.changeIndex.length);
  let c = memo.changeIndex.length;
  while (c > 0 && memo.changeIndex[c - 1] >= k) c--;
  if (c === 0) memo.out = null;
  else if (memo.out !== null) memo.out.length = outLenAfter(memo, c - 1) + (k - 1 - memo.changeIndex[c - 1]);
  memo.changeIndex.length = c;
  memo.changeReason.length = c;
  memo.logged = c;
  memo.removed.truncate(c);
  memo.addedAfter.length = c;
  memo.added.truncate(c === 0 ? 0 : memo.addedAfter[c - 1]);
  if (memo.firstTurn > k) memo.firstTurn = k;
  if (memo.ids !== null) {
    if (memo.ids.startedAt >= k) memo.ids = null;
    else memo.ids.rewind(k);
  }
}

function fold(memo: LegalizeMemo, messages: readonly Message[], from: number, target: GovernTarget, derive: DerivationCache): void {
  let started = memo.firstTurn < from;
  for (let i = from; i < messages.length; i++) {
    const msg = messages[i];
    memo.ids ??= idMapFrom(messages, i, target, derive);
    const v = legalizeMessage(msg, i, target, started, memo.ids, derive);
    if (!started && !isInstructionRole(msg.role)) {
      started = true;
      memo.firstTurn = i;
    }
    if (v.reason === null) {
      memo.out?.push(msg);
      continue;
    }
    memo.out ??= messages.slice(0, i);
    const c = memo.changeIndex.length;
    memo.changeIndex.push(i);
    memo.changeReason.push(v.reason);
    memo.addedAfter.push((c === 0 ? 0 : memo.addedAfter[c - 1]) + (v.out === null ? 0 : 1));
    if (v.out !== null) memo.out.push(v.out);
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
    const resumed = resumeFold(byHead, messages, rewind);
    const from = resumed.from;
    const memo = resumed.memo ?? fresh(this.#clock);
    const before = memo.out;
    const stable = before === null ? 0 : before.length;
    fold(memo, messages, from, target, this.#derive);
    memo.input.update(messages, from);
    byHead.set(head, memo);
    if (memo.out === null) return { messages: messages as Message[], removed: [], added: [] };
    // The output's first `stable` slots are what the later steps' memos copied last time.
    if (memo.out === before) this.#clock.vouch(memo.out, memo.out, memo.outCall, stable);
    memo.outCall = this.#clock.active;
    // The memo's own list (govern copies it if it becomes the result); the report's entry lists
    // are built when read, from entries kept as they are for it: the logs' lists of this call's
    // changes, pinned now (their entries made when first read).
    const changes = memo.changeIndex.length;
    const removed = memo.removed.list(changes);
    const added = memo.added.list(changes === 0 ? 0 : memo.addedAfter[changes - 1]);
    return new DeferredEntries(
      this.#clock.markShared(memo.out),
      () => {
        logEntries(memo, changes);
        return removed();
      },
      () => {
        logEntries(memo, changes);
        return added();
      },
    );
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    for (const byHead of this.#byTarget.values()) byHead.delete(head);
  }
}
