// An owned copy of a message list, kept by a memo to recognise the list it saw last. Histories
// grow by appending, so a memo resumes after the part both lists share. Only the array slots are
// compared (object identity, never a message's fields): a pass over two dense pointer arrays
// stays cheap when a history's message objects no longer fit in the CPU caches, and updating
// the copy in place allocates nothing when the list is the same. Messages are treated as values:
// a field replaced inside an object already governed is not seen (the Governor's input tracker
// compares content where objects differ).
import type { Message } from '@nanobot/schema';
import type { CallClock } from './call-clock.js';
import { grownCapacity } from './list-room.js';

/**
 * Above this many slots a pass compares pointers without reading the objects (see
 * commonPrefix): two lists of 16,384 slots (128 KiB each) and their messages' headers no longer
 * stay in a core's caches between calls.
 */
const CACHED_SLOTS = 16_384;

/** A private copy of the list a memo last saw, updated in place. */
export class ListSnapshot {
  readonly #clock: CallClock;
  /**
   * The copied slots, then room to grow (holes, or `undefined` where a longer copy was cut): the
   * array's length is its capacity, grown here (see list-room.ts), never by the engine.
   */
  #items: (Message | undefined)[] = [];
  #length = 0;
  /** The list the copy was last made equal to, and the call that did it (0: none). */
  #from: readonly Message[] | null = null;
  #fromCall = 0;

  constructor(clock: CallClock) {
    this.#clock = clock;
  }

  /** Length of the copy. */
  get length(): number {
    return this.#length;
  }

  /** The copied slot `i`. */
  at(i: number): Message {
    return this.#items[i] as Message;
  }

  /**
   * Length of the common prefix of the copy and `list` when it is known without a pass over
   * them, else -1: `list` is the very list the copy was made from, its copied slots unchanged
   * since (declared immutable or append-only — a Governor-owned history, whose pass is what this
   * skips — or copied in this call: lists are not changed during a call, a memo changes its own
   * only at its step, before handing it on), or a comparison made in this call vouches for it.
   */
  knownPrefix(list: readonly Message[]): number {
    if (list === this.#from && (this.#clock.keepsSlots(list) || (this.#fromCall === this.#clock.active && this.#fromCall !== 0))) return Math.min(list.length, this.#length);
    const v = this.#clock.vouched(list, this.#from, this.#fromCall);
    return v >= 0 ? Math.min(this.#length, list.length, v) : -1;
  }

  /** Length of the common prefix of the copy and `list`, by identity. */
  commonPrefix(list: readonly Message[]): number {
    const known = this.knownPrefix(list);
    if (known >= 0) return known;
    const items = this.#items;
    const limit = Math.min(this.#length, list.length);
    let k = 0;
    // Past the CPU caches, Object.is, not ===: for the same object both hold, but the engine's
    // === on values it has seen to be objects first checks that each side is one, reading every
    // message object's header — a cache miss per message once a history outgrows the caches (a
    // 100,000-message pass cost ~3x more in place); Object.is answers from the two pointers, at
    // the price of a call per slot, which a short list held in cache does not repay. The copy
    // holds only message objects, for which the two never differ. Four slots per test of the
    // loop bound: a grown history's input pass is the one pass over all of it in an over-budget
    // call (issue 31), ~10% faster so.
    if (limit > CACHED_SLOTS) {
      const by4 = limit - 3;
      while (k < by4 && Object.is(items[k], list[k]) && Object.is(items[k + 1], list[k + 1]) && Object.is(items[k + 2], list[k + 2]) && Object.is(items[k + 3], list[k + 3])) k += 4;
      while (k < limit && Object.is(items[k], list[k])) k++;
    } else {
      while (k < limit && items[k] === list[k]) k++;
    }
    return k;
  }

  /** Whether the copy was last made equal to `list` itself (the same array, maybe changed since). */
  madeFrom(list: readonly Message[]): boolean {
    return list === this.#from;
  }

  /** A one-slot guess that `list` extends the copy (its last copied slot matches). */
  mayPrefix(list: readonly Message[]): boolean {
    const n = this.#length;
    return n > 0 && n <= list.length && this.#items[n - 1] === list[n - 1];
  }

  /** Whether `list` holds exactly the copied objects. */
  equals(list: readonly Message[]): boolean {
    const n = list.length;
    if (n !== this.#length) return false;
    // Lists a govern call compares differ mostly near their end (a copy with a few results
    // rewritten, a grown history): the last slot rejects them without a pass over the prefix.
    if (n > 0 && this.#items[n - 1] !== list[n - 1]) return false;
    return this.commonPrefix(list) === n;
  }

  /** Makes the copy equal to `list`, keeping the first `shared` slots (a known common prefix). */
  update(list: readonly Message[], shared: number): void {
    const n = list.length;
    let items = this.#items;
    // A copy cut to a quarter of its room gets a smaller array (a long history's copy reused for
    // a short list must not keep its room).
    if (n > items.length || (items.length > 64 && n < items.length >> 2)) {
      // Only the slots kept are carried over: the others are written next.
      const grown = new Array<Message | undefined>(grownCapacity(n));
      for (let i = 0; i < shared; i++) grown[i] = items[i];
      items = this.#items = grown;
    } else {
      // Slots a longer copy held are cleared, not cut: the messages must not stay alive through
      // them, and cutting the array would give its room back to grow it again later.
      for (let i = n; i < this.#length; i++) items[i] = undefined;
    }
    for (let i = shared; i < n; i++) items[i] = list[i];
    this.#length = n;
    this.#from = list;
    this.#fromCall = this.#clock.active;
  }

  /**
   * Marks the copy as made from `list` in this call, without copying: for a copy found equal to
   * `list` (see {@link equals}), so the next call's comparisons of `list` can vouch for it.
   */
  markSeen(list: readonly Message[]): void {
    this.update(list, list.length);
  }

  /**
   * Called after comparing `list` with this copy (`prefix`: their common prefix): for the rest
   * of the current call, copies other memos took of the list this copy was made from, in the
   * call that made it, share that prefix with `list`.
   */
  vouchFor(list: readonly Message[], prefix: number): void {
    this.#clock.vouch(list, this.#from, this.#fromCall, prefix);
  }
}
