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
import { frozenRef } from '../report/reported-message.js';
import type { CallClock } from './call-clock.js';
import { EntryLog } from './entry-log.js';
import { giveRoom } from './list-room.js';
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
  /** The copy of `out` given room to grow (see list-room.ts), once it needed it. */
  roomed: Message[] | null;
  /**
   * Per change (input order): its input index and why. The report entries are made from these
   * when a list that holds them is read (most never are; see entry-log.ts): an entry per change
   * made in the fold kept two frozen objects per renamed message alive, Mistral's every tool
   * message. The message changed and what replaced it are not kept beside them: they stand in
   * the input copy and the output at slots that stay as they are while the change is kept (see
   * `removedEntry`), and two more list slots per change were each grown history's new ones to
   * keep for good.
   */
  changeIndex: number[];
  changeReason: TargetChangeReason[];
  /** The removed entries, one per change (made from the state above when read). */
  removed: EntryLog;
  /** The added entries (changes that dropped a message have none) and, per change, how many there are after it. */
  added: EntryLog;
  addedAfter: number[];
  /** The fold's id renaming, once it met an id the target rejects (null before). */
  ids: ToolCallIdMap | null;
}

function fresh(clock: CallClock): LegalizeMemo {
  const memo: LegalizeMemo = {
    input: new ListSnapshot(clock), firstTurn: 0, out: null, outCall: 0, roomed: null, changeIndex: [], changeReason: [],
    removed: new EntryLog((c) => removedEntry(memo, c)), added: new EntryLog((a) => addedEntry(memo, a)), addedAfter: [], ids: null,
  };
  return memo;
}

/** The output length after change `c`: every input before it kept one slot, every change before it 0 or 1. */
function outLenAfter(memo: LegalizeMemo, c: number): number {
  return memo.changeIndex[c] - c + memo.addedAfter[c];
}

/**
 * The removed entry of change `c`: the message it changed, at its input index. Entries are made
 * from the slots where the messages stand (the input copy; the output for added ones): both only
 * grow by appending while a change is kept, and a rewind cuts the logs back before either (the
 * logs then make what a handed-out list still reads of the changes that go), so the slots hold
 * what the change saw and made.
 */
function removedEntry(memo: LegalizeMemo, c: number): ReportedMessage {
  const at = memo.changeIndex[c];
  return frozenRef(memo.input.at(at), at, memo.changeReason[c]);
}

/** Added entry `a`: the output message of the change whose kept output is the `a`-th (binary search on `addedAfter`). */
function addedEntry(memo: LegalizeMemo, a: number): ReportedMessage {
  let lo = 0;
  let hi = memo.addedAfter.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (memo.addedAfter[mid] > a) hi = mid;
    else lo = mid + 1;
  }
  const at = outLenAfter(memo, lo) - 1;
  return frozenRef(memo.out![at], at, memo.changeReason[lo]);
}

/** Rewinds the fold to its state after the first `k` inputs. */
function rewind(memo: LegalizeMemo, k: number): void {
  let c = memo.changeIndex.length;
  while (c > 0 && memo.changeIndex[c - 1] >= k) c--;
  // Lists handed out may still be built from the changes about to go: the logs are cut back
  // first, while the state still holds them (they make what a handed-out list reads of them).
  memo.removed.truncate(c);
  memo.added.truncate(c === 0 ? 0 : memo.addedAfter[c - 1]);
  if (c === 0) memo.out = null;
  else if (memo.out !== null) memo.out.length = outLenAfter(memo, c - 1) + (k - 1 - memo.changeIndex[c - 1]);
  memo.changeIndex.length = c;
  memo.changeReason.length = c;
  memo.addedAfter.length = c;
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
    const added = (c === 0 ? 0 : memo.addedAfter[c - 1]) + (v.out === null ? 0 : 1);
    memo.addedAfter.push(added);
    if (v.out !== null) memo.out.push(v.out);
    memo.removed.growTo(c + 1);
    memo.added.growTo(added);
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
    giveRoom(memo);
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
    return new DeferredEntries(this.#clock.markShared(memo.out), removed, added);
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    for (const byHead of this.#byTarget.values()) byHead.delete(head);
  }
}
