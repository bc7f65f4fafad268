// The report entries a fold memo keeps (one per change, in fold order), handed to every call's
// report as a list built only when the report is read (see report/deferred-list.ts), instead of
// a copy of all of them per call. An entry list handed out must not change under a caller who
// keeps the report: the slots any handed-out list may still read are never written again (a cut
// or a rewrite among them moves the log to a copy first), so building later reads what was there.
import type { ReportedMessage } from '../report/govern-report.js';
import type { ListBuilder } from '../report/deferred-list.js';

/** A list's source: the array, how many entries and an entry before them (null: none). */
interface Built {
  items: readonly ReportedMessage[];
  n: number;
  first: ReportedMessage | null;
  list: readonly ReportedMessage[];
}

/** A memo's report entries, appended to, cut back and (rarely) rewritten; see the file comment. */
export class EntryLog {
  #items: ReportedMessage[] = [];
  /** How many leading slots of `#items` a handed-out list may still read (never written again). */
  #pinned = 0;
  /** The last list built, handed out again for the same source (the same slots: they are pinned). */
  #built: Built | null = null;

  /** How many entries there are. */
  get length(): number {
    return this.#items.length;
  }

  /** Entry `i`. */
  at(i: number): ReportedMessage {
    return this.#items[i];
  }

  /** Appends `entry` (frozen: reports share it). */
  push(entry: ReportedMessage): void {
    this.#items.push(entry);
  }

  /** Replaces entry `i` (frozen). */
  set(i: number, entry: ReportedMessage): void {
    if (i < this.#pinned) this.#unpin(this.#items.length);
    this.#items[i] = entry;
  }

  /** Cuts the log back to its first `n` entries. */
  truncate(n: number): void {
    if (n >= this.#items.length) return;
    if (n < this.#pinned) this.#unpin(n);
    else this.#items.length = n;
  }

  /**
   * The builder of the frozen list of `first` (when not null) and the first `n` entries, for a
   * report; those entries stay as they are for it. Building the same list again returns the
   * same array (reports share their lists).
   */
  list(n: number = this.#items.length, first: ReportedMessage | null = null): ListBuilder<ReportedMessage> {
    const items = this.#items;
    if (n > this.#pinned) this.#pinned = n;
    return () => {
      const b = this.#built;
      if (b !== null && b.items === items && b.n === n && b.first === first) return b.list;
      const list = Object.freeze(first === null ? items.slice(0, n) : [first].concat(items.slice(0, n)));
      this.#built = { items, n, first, list };
      return list;
    };
  }

  /** Moves to a copy of the first `n` entries: lists handed out keep reading the old array. */
  #unpin(n: number): void {
    this.#items = this.#items.slice(0, n);
    this.#pinned = 0;
  }
}
