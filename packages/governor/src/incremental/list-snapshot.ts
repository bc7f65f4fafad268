// An owned copy of a message list, kept by the governor's per-history memos to recognise the
// list they saw last. Histories grow by appending, so a memo resumes after the part both lists
// share. Only the array slots are compared (object identity, never a message's fields): a pass
// over two dense pointer arrays stays cheap when a history's message objects no longer fit in
// the CPU caches, and updating the copy in place allocates nothing when the list is the same.
// Messages are treated as values: a field replaced inside an object already governed is not seen.
import type { Message } from '@nanobot/schema';

// Lists no one changes after they are made (the governor's own intermediate copies, which never
// leave it): a snapshot taken of one is known to equal it without a pass.
const immutable = new WeakSet<readonly Message[]>();

/** Declares that nothing will change `list` from now on; returns it. */
export function markImmutable<T extends readonly Message[]>(list: T): T {
  immutable.add(list);
  return list;
}

// Within one govern call, the caller's list is compared once with the copy govern took of it
// in its previous call; when they match, every memo that copied the same list in that previous
// call matches it too, without another pass. Calls are numbered; 0 means outside govern.
let activeCall = 0;
let calls = 0;
const vouched = new WeakMap<readonly Message[], { during: number; since: number; prefix: number }>();

/** Starts a govern call (returns what {@link endGovernCall} restores: calls do not nest in practice). */
export function beginGovernCall(): number {
  const outer = activeCall;
  activeCall = ++calls;
  return outer;
}

/** Ends the govern call begun by {@link beginGovernCall}. */
export function endGovernCall(outer: number): void {
  activeCall = outer;
}

/** A private copy of the list a memo last saw, updated in place. */
export class ListSnapshot {
  readonly #items: Message[] = [];
  /** The list the copy was last made equal to, and the govern call that did it (0: none). */
  #from: readonly Message[] | null = null;
  #fromCall = 0;

  /** Length of the copy. */
  get length(): number {
    return this.#items.length;
  }

  /** Length of the common prefix of the copy and `list`, by identity. */
  commonPrefix(list: readonly Message[]): number {
    if (list === this.#from) {
      if (immutable.has(list)) return list.length;
      const v = vouched.get(list);
      if (v !== undefined && v.during === activeCall && activeCall !== 0 && v.since === this.#fromCall) return Math.min(this.#items.length, v.prefix);
    }
    const items = this.#items;
    const limit = Math.min(items.length, list.length);
    let k = 0;
    while (k < limit && items[k] === list[k]) k++;
    return k;
  }

  /** A one-slot guess that `list` extends the copy (its last copied slot matches). */
  mayPrefix(list: readonly Message[]): boolean {
    const n = this.#items.length;
    return n > 0 && n <= list.length && this.#items[n - 1] === list[n - 1];
  }

  /** Whether `list` holds exactly the copied objects. */
  equals(list: readonly Message[]): boolean {
    return list.length === this.#items.length && this.commonPrefix(list) === list.length;
  }

  /** Makes the copy equal to `list`, keeping the first `shared` slots (a known common prefix). */
  update(list: readonly Message[], shared: number): void {
    const items = this.#items;
    items.length = shared;
    for (let i = shared; i < list.length; i++) items.push(list[i]);
    this.#from = list;
    this.#fromCall = activeCall;
  }

  /**
   * Called by govern after comparing `list` with this copy (`prefix`: their common prefix):
   * for the rest of the current call, copies made of the same list in the call that made this
   * one share that prefix with it.
   */
  vouchFor(list: readonly Message[], prefix: number): void {
    if (activeCall !== 0 && this.#from === list && this.#fromCall !== 0) vouched.set(list, { during: activeCall, since: this.#fromCall, prefix });
    else vouched.delete(list);
  }
}
