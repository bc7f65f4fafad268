// A growable list of small non-negative integers (indices into a history), kept by a memo per
// slot of a history. Its numbers live in an Int32Array: the garbage collector neither copies nor
// visits them, where a plain array of a 10,000-message history's indices (a FixedArray of 8-byte
// slots) was copied whole, each slot visited, by the two young-generation collections after each
// time it grew (kept, then promoted), ~120 KB each time.

/** A list of integers in 0 … 2^31 − 1, grown in place (a memo's per-slot indices). */
export class IndexList {
  #items = new Int32Array(16);
  #length = 0;

  /** How many numbers the list holds. */
  get length(): number {
    return this.#length;
  }

  /** Number `i`; the caller keeps `0 <= i < length` (past it: a stale number or undefined). */
  at(i: number): number {
    return this.#items[i];
  }

  /** Appends `n`. */
  push(n: number): void {
    if (this.#length === this.#items.length) {
      const grown = new Int32Array(this.#items.length * 2);
      grown.set(this.#items);
      this.#items = grown;
    }
    this.#items[this.#length++] = n;
  }

  /** Keeps the first `n` numbers (`n <= length`). */
  truncate(n: number): void {
    if (n < this.#length) this.#length = Math.max(0, n);
  }
}
