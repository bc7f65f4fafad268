// The governor's role-alternation step (Anthropic, 'any') resumed per history. A runner governs
// the same history again with a few messages appended; enforceRoleAlternationDetailed is a left
// fold over the messages (same-role turns merged into the last output slot), so the fold's
// state is kept (its slots, and the input each began at) and the next call resumes where its
// input leaves the last one (compared by object identity; see rewind). The report's entries
// for merged turns are kept too and reused (frozen: reports are plain data shared between
// calls), so a repeated history costs two pointer passes and one copy of the output instead of
// a fold, a merge lookup per message and an entry per merge. The rare shape that turns a popped
// assistant turn into a user turn (only assistant turns left) takes the plain function. Fixed
// mode only (what govern uses).
import type { Message } from '@nanobot/schema';
import type { ReportedMessage } from '../report/govern-report.js';
import type { DerivationCache } from '../steps/derivation-cache.js';
import { alternationWithEntries, continuedTurnBefore, mergeOnce } from '../steps/target/enforce-role-alternation.js';
import { isInstructionRole } from '../steps/target/govern-target.js';
import { DeferredEntries, type ListBuilder } from '../report/deferred-list.js';
import { frozenRef, ref } from '../report/reported-message.js';
import type { CallClock } from './call-clock.js';
import { EntryLog } from './entry-log.js';
import { IndexList } from './index-list.js';
import { giveRoom } from './list-room.js';
import { ListSnapshot } from './list-snapshot.js';
import { listWithOpener, syncListWithOpener } from './opener-list.js';
import { resumeFold } from './resume-fold.js';

/** The step's output with its report entries (input indices for removed, output for added). */
export interface ReportedAlternation {
  messages: Message[];
  removed: ReportedMessage[];
  added: ReportedMessage[];
}

interface AlternationMemo {
  input: ListSnapshot;
  /** Output slots after the whole input (before trailing assistant turns are popped). */
  out: Message[];
  /** The copy of `out` given room to grow (see list-room.ts), once it needed it. */
  roomed: Message[] | null;
  /**
   * First input index of each slot: what a rewind finds the state after any input from. A slot
   * holds the inputs up to the next slot's first (the last slot: up to the end of `input`).
   */
  slotStart: IndexList;
  /**
   * `merged-same-role` removals in input order: each one's input index and slot, and their
   * report entries, made when a list that holds them is read (from the input copy, which holds
   * the message at that index while the removal is kept; see entry-log.ts). Made in the fold,
   * two frozen entries per merge were made and kept on every call that merged.
   */
  removed: EntryLog;
  removedIndex: number[];
  removedSlot: number[];
  /** Slots holding merged turns, ascending, with their cached report entries (made up to `addedEntry.length`). */
  mergedSlots: number[];
  addedEntry: EntryLog;
  addedMessage: (Message | undefined)[];
  /** 1 when the entry was made for an output with the opener before it. */
  addedShift: number[];
  /**
   * How many leading entries are known to be up to date for `checkedShift` (their slots not
   * merged into or rewound since they were checked): a grown history checks only the rest.
   */
  checked: number;
  checkedShift: number;
  /** Bumped whenever the fold changes. */
  version: number;
  /**
   * The output with the opener before its first turn (a history whose first turn is an
   * assistant's), the memo's own list kept in step with `out` in place: out's slot `i` stands at
   * `i` before `openerFirst` and at `i + 1` from it. A new copy per call cost a pass over the
   * history and ~80 KB that the young generation promoted (later steps' memos keep it a while):
   * Mistral's grown 10,000-message call then ran at ~2.5 MB promoted per collection, against
   * ~25 KB for 'openai'.
   */
  withOpener: Message[] | null;
  opener: Message | null;
  openerFirst: number;
  /** How many leading slots of `out` stand in `withOpener` as they are in `out` now. */
  openerSynced: number;
  /** The call that last handed `withOpener` out (as `outCall` for `out`). */
  openerCall: number;
  /** The call that last handed `out` itself out, and the first slot changed since (later steps' copies share the slots before). */
  outCall: number;
  touched: number;
  /**
   * The report's entry lists last handed out (built when read, frozen, shared: reports are plain
   * data), for the fold version, kept slots and opener they were made for; the same again while
   * none has changed.
   */
  report: { version: number; kept: number; opener: Message | null; removed: ListBuilder<ReportedMessage>; added: ListBuilder<ReportedMessage> } | null;
}

function fresh(clock: CallClock): AlternationMemo {
  const memo: AlternationMemo = {
    input: new ListSnapshot(clock), out: [], roomed: null, slotStart: new IndexList(),
    removed: new EntryLog((r) => removedEntry(memo, r)), removedIndex: [], removedSlot: [], mergedSlots: [], addedEntry: new EntryLog(), addedMessage: [], addedShift: [], checked: 0, checkedShift: 0,
    version: 0, withOpener: null, opener: null, openerFirst: 0, openerSynced: 0, openerCall: 0, outCall: 0, touched: 0, report: null,
  };
  return memo;
}

/** Removal `r`'s entry: the merged-away input at its index in the input copy. */
function removedEntry(memo: AlternationMemo, r: number): ReportedMessage {
  const at = memo.removedIndex[r];
  return frozenRef(memo.input.at(at), at, 'merged-same-role');
}

/** Lists removal of input `at` (into `slot`); its entry is made when read. */
function remove(memo: AlternationMemo, at: number, slot: number): void {
  memo.removedIndex.push(at);
  memo.removedSlot.push(slot);
  memo.removed.growTo(memo.removedIndex.length);
}

/**
 * Rewinds the fold to its state after the first `k` inputs (`k >= 1`, before the input copy is
 * updated: it still holds the inputs folded). The slot input `k - 1` went into is the last one
 * starting at or before it; when that slot had merged later inputs too, its message is merged
 * again from the slot's first input to `k - 1`. Merges are derived per pair of messages, so that
 * gives the very objects the fold made then. (Keeping the state after every input instead cost
 * three list slots per message of the history, each grown history's new ones kept for good.)
 */
function rewind(memo: AlternationMemo, k: number, derive: DerivationCache): void {
  memo.version++;
  const { slotStart } = memo;
  let last = slotStart.length - 1;
  while (slotStart.at(last) > k - 1) last--;
  const len = last + 1;
  const start = slotStart.at(last);
  const sizeLast = k - start;
  // The slot held the inputs up to the next slot's first, or (the last slot) all folded ones.
  const sizeBefore = (len < slotStart.length ? slotStart.at(len) : memo.input.length) - start;
  memo.touched = Math.min(memo.touched, last);
  memo.openerSynced = Math.min(memo.openerSynced, last);
  if (sizeLast !== sizeBefore) {
    let merged = memo.input.at(start);
    for (let j = start + 1; j < k; j++) merged = mergeOnce(merged, memo.input.at(j), false, derive)!;
    memo.out[last] = merged;
  }
  memo.out.length = len;
  slotStart.truncate(len);
  const { removed, removedIndex, removedSlot, mergedSlots } = memo;
  let r = removedIndex.length;
  while (r > 0 && removedIndex[r - 1] >= k) r--;
  // The last slot's first input is listed only once the slot holds a merge.
  if (sizeLast === 1 && r > 0 && removedSlot[r - 1] === len - 1) r--;
  // The log first: lists handed out may still read the entries cut, made now from the state.
  removed.truncate(r);
  removedIndex.length = r;
  removedSlot.length = r;
  while (mergedSlots.length > 0 && (mergedSlots[mergedSlots.length - 1] >= len || (sizeLast === 1 && mergedSlots[mergedSlots.length - 1] === len - 1))) {
    mergedSlots.pop();
  }
  memo.addedEntry.truncate(mergedSlots.length);
  memo.addedMessage.length = mergedSlots.length;
  memo.addedShift.length = mergedSlots.length;
  // The last slot was restored to an earlier message: its entry, if it is merged, is checked again.
  memo.checked = Math.min(memo.checked, Math.max(0, mergedSlots.length - 1));
}

function fold(memo: AlternationMemo, messages: readonly Message[], from: number, derive: DerivationCache): void {
  const { out, slotStart } = memo;
  if (from < messages.length) memo.version++;
  for (let i = from; i < messages.length; i++) {
    const msg = messages[i];
    const last = out.length - 1;
    const prev = out[last];
    if (prev !== undefined && (msg.role === 'user' || msg.role === 'assistant') && prev.role === msg.role) {
      // Fixed mode always merges (only the reference drops).
      out[last] = mergeOnce(prev, msg, false, derive)!;
      if (last < memo.touched) memo.touched = last;
      if (last < memo.openerSynced) memo.openerSynced = last;
      // The slot's first merge (it held input i - 1 alone): its first input is removed too.
      const start = slotStart.at(last);
      if (start === i - 1) {
        remove(memo, start, last);
        memo.mergedSlots.push(last);
      }
      // The last slot is the last merged one now: its entry is checked again.
      memo.checked = Math.min(memo.checked, memo.mergedSlots.length - 1);
      remove(memo, i, last);
    } else {
      out.push(msg);
      slotStart.push(i);
    }
  }
}

/**
 * The report's entry lists of the fold's output with `kept` slots: builders of frozen lists kept
 * for reports to share when nothing was popped, else lists of their own.
 */
function entries(memo: AlternationMemo, messages: readonly Message[], kept: number, popped: boolean, opener: Message | null, first: number, shift: number): { removed: ListBuilder<ReportedMessage>; added: ListBuilder<ReportedMessage> } {
  const { out, slotStart } = memo;
  let cut = memo.removedSlot.length;
  while (cut > 0 && memo.removedSlot[cut - 1] >= kept) cut--;
  const { mergedSlots, addedEntry, addedMessage, addedShift } = memo;
  let m = mergedSlots.length;
  while (m > 0 && mergedSlots[m - 1] >= kept) m--;
  const same = shift === memo.checkedShift;
  for (let j = same ? Math.min(memo.checked, m) : 0; j < m; j++) {
    const slot = mergedSlots[j];
    if (j >= addedEntry.length || addedMessage[j] !== out[slot] || addedShift[j] !== shift) {
      addedEntry.set(j, frozenRef(out[slot], slot + shift, 'merged-same-role'));
      addedMessage[j] = out[slot];
      addedShift[j] = shift;
    }
  }
  memo.checked = same ? Math.max(memo.checked, m) : m;
  memo.checkedShift = shift;
  const openerEntry = opener === null ? null : frozenRef(opener, first, 'conversation-continued');
  if (!popped) return { removed: memo.removed.list(cut), added: addedEntry.list(m, openerEntry) };
  const removed: ReportedMessage[] = [];
  for (let i = 0; i < cut; i++) removed.push(memo.removed.at(i));
  for (let i = slotStart.at(kept); i < messages.length; i++) removed.push(ref(messages[i], i, 'trailing-assistant'));
  const added: ReportedMessage[] = openerEntry === null ? [] : [openerEntry];
  for (let i = 0; i < m; i++) added.push(addedEntry.at(i));
  return { removed: () => Object.freeze(removed), added: () => Object.freeze(added) };
}

/** The step's result with its entry lists built when first read. */
function withEntries(messages: Message[], removed: ListBuilder<ReportedMessage>, added: ListBuilder<ReportedMessage>): ReportedAlternation {
  return new DeferredEntries(messages, removed, added);
}

function hasUserOrTool(out: readonly Message[], kept: number): boolean {
  for (let i = 0; i < kept; i++) if (out[i].role === 'user' || out[i].role === 'tool') return true;
  return false;
}

/**
 * One Governor's resumed role alternations: `alternationWithEntries` (fixed mode) with govern's
 * report entries, resumed from the last call on the same history. Same result; the same array
 * when nothing changes, else possibly a list the memo owns (changed by the next call: only
 * govern's later steps may read it).
 */
export class AlternationMemos {
  readonly #clock: CallClock;
  readonly #derive: DerivationCache;
  readonly #byHead = new WeakMap<Message, AlternationMemo>();
  readonly #rewind: (memo: AlternationMemo, k: number) => void;

  constructor(clock: CallClock, derive: DerivationCache) {
    this.#clock = clock;
    this.#derive = derive;
    this.#rewind = (memo, k) => rewind(memo, k, derive);
  }

  /** See the class comment. */
  run(messages: readonly Message[]): ReportedAlternation {
    const n = messages.length;
    if (n === 0) return { messages: messages as Message[], removed: [], added: [] };
    const head = messages[0];
    const resumed = resumeFold(this.#byHead, messages, this.#rewind);
    const from = resumed.from;
    const memo = resumed.memo ?? fresh(this.#clock);
    fold(memo, messages, from, this.#derive);
    giveRoom(memo);
    memo.input.update(messages, from);
    this.#byHead.set(head, memo);

    const { out } = memo;
    let kept = out.length;
    while (kept > 0 && out[kept - 1].role === 'assistant') kept--;
    const popped = kept < out.length;
    let first = 0;
    while (first < kept && isInstructionRole(out[first].role)) first++;
    // A user turn made from a popped assistant turn (nothing else left): the plain function.
    if (popped && !hasUserOrTool(out, kept)) return alternationWithEntries(messages, this.#derive);
    // An assistant turn first gets the `(conversation continued)` opener: later slots move by one.
    const opener = first < kept && out[first].role === 'assistant' ? continuedTurnBefore(out[first], this.#derive) : null;
    const shift = opener === null ? 0 : 1;
    if (kept === n && opener === null) return { messages: messages as Message[], removed: [], added: [] };

    // Without popped turns the entries depend on the fold, the kept slots and the opener only: a
    // repeated history hands out the same frozen lists instead of copies as long as its merges.
    const known = memo.report;
    let removed: ListBuilder<ReportedMessage>;
    let added: ListBuilder<ReportedMessage>;
    if (!popped && known !== null && known.version === memo.version && known.kept === kept && known.opener === opener) {
      ({ removed, added } = known);
    } else {
      ({ removed, added } = entries(memo, messages, kept, popped, opener, first, shift));
      memo.report = popped ? null : { version: memo.version, kept, opener, removed, added };
    }
    // The memo's own list when nothing was popped (govern copies it if it becomes the result).
    if (opener === null) {
      if (kept < out.length) return withEntries(out.slice(0, kept), removed, added);
      // Handed out again: copies later steps took of it last time share the slots before the first change.
      this.#clock.vouch(out, out, memo.outCall, Math.min(memo.touched, out.length));
      memo.outCall = this.#clock.active;
      memo.touched = out.length;
      return withEntries(this.#clock.markShared(out), removed, added);
    }
    return withEntries(this.#clock.markShared(this.#withOpener(memo, opener, first, kept)), removed, added);
  }

  /** `out`'s first `kept` slots with `opener` at `first`: the memo's list, brought in step with `out` in place. */
  #withOpener(memo: AlternationMemo, opener: Message, first: number, kept: number): Message[] {
    const list = memo.withOpener;
    if (list === null || memo.opener !== opener || memo.openerFirst !== first) {
      memo.withOpener = listWithOpener(memo.out, opener, first, kept);
      memo.opener = opener;
      memo.openerFirst = first;
      memo.openerCall = this.#clock.active;
      memo.openerSynced = kept;
      return memo.withOpener;
    }
    const unchanged = syncListWithOpener(list, memo.out, first, Math.min(memo.openerSynced, kept), kept);
    // Copies later steps took of it when it was last handed out share the slots before the first change.
    this.#clock.vouch(list, list, memo.openerCall, unchanged);
    memo.openerCall = this.#clock.active;
    memo.openerSynced = kept;
    return list;
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#byHead.delete(head);
  }
}
