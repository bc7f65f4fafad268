// The bookkeeping one Governor's memos share within and across govern calls: calls are
// numbered, lists the governor made and never changes again are known as such, lists a memo
// hands to later steps are known as memo-owned (copied before they leave govern), and within a
// call a list, once compared with a copy taken of an earlier list (the caller's previous list,
// a memo's previous output), vouches for every other copy taken of that earlier list in the same
// earlier call: they share the same prefix with it, known without another pass.
import type { Message } from '@nanobot/schema';

/** What a vouch says: during call `during`, copies taken of `from` in call `since` share `prefix` slots. */
interface Vouch {
  during: number;
  from: readonly Message[];
  since: number;
  prefix: number;
}

/** One Governor's call numbering and list marks (see the file comment). */
export class CallClock {
  #active = 0;
  #calls = 0;
  readonly #immutable = new WeakSet<readonly Message[]>();
  /** Lists that only grow by appending (a Governor-owned history's array). */
  readonly #appendOnly = new WeakSet<readonly Message[]>();
  readonly #shared = new WeakSet<readonly Message[]>();
  /**
   * Per list, what was vouched for it in the current call; null outside a call. Not kept across
   * calls: a vouch holds the earlier list it speaks of, so entries kept (even weakly keyed)
   * chain every caller's list to the one before it, and a Governor kept every history it was
   * ever given alive. A map of its own per call, dropped when the call ends (not emptied): a
   * long-lived map lives in the old generation, and the table a clear leaves behind there still
   * points at the call's lists, which every young-generation collection until the next full one
   * then kept and promoted (each call's copy of a 10,000-message history: ~80 KB a call).
   */
  #vouched: Map<readonly Message[], Vouch[]> | null = null;

  /** The current call's number (0 outside a call). */
  get active(): number {
    return this.#active;
  }

  /** Starts a call; returns what {@link end} restores (calls do not nest in practice). */
  begin(): number {
    const outer = this.#active;
    this.#active = ++this.#calls;
    return outer;
  }

  /** Ends the call begun by {@link begin}. */
  end(outer: number): void {
    this.#active = outer;
    if (outer === 0) this.#vouched = null;
  }

  /** Declares that nothing will change `list` from now on; returns it. */
  markImmutable<T extends readonly Message[]>(list: T): T {
    this.#immutable.add(list);
    return list;
  }

  /**
   * Declares that from now on `list` changes only by appending (no slot is replaced, nothing is
   * removed): a copy taken of it then shares every copied slot with it. Returns it.
   */
  markAppendOnly<T extends readonly Message[]>(list: T): T {
    this.#appendOnly.add(list);
    return list;
  }

  /** Whether `list` was declared immutable or append-only: its earlier slots never change. */
  keepsSlots(list: readonly Message[]): boolean {
    return this.#immutable.has(list) || this.#appendOnly.has(list);
  }

  /** Marks `list` as owned by a memo (handed to later steps, kept for the next call); returns it. */
  markShared<T extends readonly Message[]>(list: T): T {
    this.#shared.add(list);
    return list;
  }

  /** `list` itself, or a copy when a memo owns it (what govern returns must be the caller's to change). */
  releasable(list: Message[]): Message[] {
    return this.#shared.has(list) ? list.slice() : list;
  }

  /**
   * Records, for the rest of the current call, that copies taken of `from` in call `since` share
   * `prefix` slots with `list`.
   */
  vouch(list: readonly Message[], from: readonly Message[] | null, since: number, prefix: number): void {
    if (this.#active === 0 || since === 0 || from === null) return;
    // A list may be vouched for against several earlier lists (the caller's, a memo's own).
    const vouched = (this.#vouched ??= new Map<readonly Message[], Vouch[]>());
    let all = vouched.get(list);
    if (all === undefined || all.length > 0 && all[0].during !== this.#active) {
      all = [];
      vouched.set(list, all);
    }
    const v = all.find((x) => x.from === from && x.since === since);
    if (v !== undefined) v.prefix = prefix;
    else all.push({ during: this.#active, from, since, prefix });
  }

  /** The prefix vouched for `list` in the current call for copies taken of `from` in call `since`, else -1. */
  vouched(list: readonly Message[], from: readonly Message[] | null, since: number): number {
    const all = this.#vouched?.get(list);
    if (all === undefined || this.#active === 0) return -1;
    for (const v of all) if (v.during === this.#active && v.from === from && v.since === since) return v.prefix;
    return -1;
  }
}
