// The report entries a fold memo keeps (one per change, in fold order), handed to every call's
// report as a list built only when the report is read (see report/deferred-list.ts), instead of
// a copy of all of them per call. An entry list handed out must not change under a caller who
// keeps the report, though the memo cuts its entries back and rewrites them on later calls.
//
// A log is made eagerly (the memo pushes entries) or lazily (the memo only counts its changes
// and the log makes an entry from the memo's state when a list that holds it is first built).
// A cut or a rewrite among the entries a handed-out list may read starts a new version of the
// log: the old version keeps the entries from the cut on (made then, while the memo's state
// still holds them) and reads the ones before it from the new version, which has the same ones
// there. So a cut copies only what it cuts, and a lazy log makes an entry only when a list that
// holds it is read or a cut takes it away; the rest stay unmade (the first rewind of a
// 10,000-message Mistral history made all 16,000 of its entries when the log copied instead).
import type { ReportedMessage } from '../report/govern-report.js';
import type { ListBuilder } from '../report/deferred-list.js';

/**
 * Makes entry `i` of a lazy log from its memo's state. Contract: called only for `i` below the
 * log's length, before the memo changes the state entry `i` is made from (the memo cuts its
 * log back first); must not throw; the entry is frozen (reports share it).
 */
export type MakeEntry = (i: number) => ReportedMessage;

/**
 * One version of a log's entries. The current one (`next` null) reads the log's array; an
 * older one reads its first `cut` entries from `next` and the rest from `tail`.
 */
interface Version {
  cut: number;
  tail: readonly ReportedMessage[];
  next: Version | null;
}

/** The last list built: handed out again for the same version, length and first entry. */
interface Built {
  version: Version;
  n: number;
  first: ReportedMessage | null;
  list: readonly ReportedMessage[];
}

/** A memo's report entries, appended to, cut back and (rarely) rewritten; see the file comment. */
export class EntryLog {
  readonly #make: MakeEntry | null;
  /** The current version's entries made so far (its first `#items.length`; a lazy log makes the rest on demand). */
  readonly #items: ReportedMessage[] = [];
  #length = 0;
  /** How many leading entries of the current version a handed-out list may still read. */
  #pinned = 0;
  #version: Version = { cut: 0, tail: [], next: null };
  #built: Built | null = null;

  /** An eager log (entries pushed), or with `make` a lazy one (see {@link MakeEntry}). */
  constructor(make: MakeEntry | null = null) {
    this.#make = make;
  }

  /** How many entries there are. */
  get length(): number {
    return this.#length;
  }

  /** Entry `i` (`i` below the length). */
  at(i: number): ReportedMessage {
    this.#fill(i + 1);
    return this.#items[i];
  }

  /** Appends `entry` (frozen: reports share it). An eager log's only way to grow (a lazy one grows with {@link growTo}). */
  push(entry: ReportedMessage): void {
    this.#items.push(entry);
    this.#length++;
  }

  /** A lazy log grows to `n` entries (not made until read). */
  growTo(n: number): void {
    if (n > this.#length) this.#length = n;
  }

  /** Replaces entry `i` (frozen), or appends it at `i` = the length. */
  set(i: number, entry: ReportedMessage): void {
    if (i < this.#pinned) this.#branch(i);
    this.#fill(i);
    this.#items[i] = entry;
    if (i >= this.#length) this.#length = i + 1;
  }

  /** Cuts the log back to its first `n` entries. */
  truncate(n: number): void {
    if (n >= this.#length) return;
    if (n < this.#pinned) this.#branch(n);
    if (this.#items.length > n) this.#items.length = n;
    this.#length = n;
  }

  /**
   * The builder of the frozen list of `first` (when not null) and the first `n` entries, for a
   * report; those entries stay as they are for it. Building the same list again returns the
   * same array (reports share their lists).
   */
  list(n: number = this.#length, first: ReportedMessage | null = null): ListBuilder<ReportedMessage> {
    const version = this.#version;
    if (n > this.#pinned) this.#pinned = n;
    return () => {
      const b = this.#built;
      if (b !== null && b.version === version && b.n === n && b.first === first) return b.list;
      const entries = this.#entries(version, n);
      const list = Object.freeze(first === null ? entries : [first].concat(entries));
      this.#built = { version, n, first, list };
      return list;
    };
  }

  /** The first `n` entries of `version` (a new array). */
  #entries(version: Version, n: number): ReportedMessage[] {
    if (version.next === null) {
      this.#fill(n);
      return this.#items.slice(0, n);
    }
    if (n <= version.cut) return this.#entries(version.next, n);
    const head = this.#entries(version.next, version.cut);
    for (let i = version.cut; i < n; i++) head.push(version.tail[i - version.cut]);
    return head;
  }

  /**
   * Starts a new version whose entries from `at` on may change: the current one keeps the
   * entries from `at` to the pinned end as its tail (made now, while the memo's state holds
   * them) and reads the ones before from the new version.
   */
  #branch(at: number): void {
    const items = this.#items;
    const tail: ReportedMessage[] = [];
    // Only the entries from `at` on: the unmade ones before it stay unmade (the new version makes them alike).
    for (let i = at; i < this.#pinned; i++) tail.push(i < items.length ? items[i] : this.#make!(i));
    const old = this.#version;
    old.cut = at;
    old.tail = tail;
    old.next = { cut: 0, tail: [], next: null };
    this.#version = old.next;
    this.#pinned = at;
  }

  /** Makes the current version's entries up to `n` (a lazy log; an eager one has them all). */
  #fill(n: number): void {
    const make = this.#make;
    if (make === null) return;
    for (let i = this.#items.length; i < n; i++) this.#items.push(make(i));
  }
}
