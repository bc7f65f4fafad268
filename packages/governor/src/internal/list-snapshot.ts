// An owned copy of a message list, kept by the governor's per-history memos to recognise the
// list they saw last. Histories grow by appending, so a memo resumes after the part both lists
// share. Only the array slots are compared (object identity, never a message's fields): a pass
// over two dense pointer arrays stays cheap when a history's message objects no longer fit in
// the CPU caches, and updating the copy in place allocates nothing when the list is the same.
// Messages are treated as values: a field replaced inside an object already governed is not seen.
import type { Message } from '@nanobot/schema';

/** A private copy of the list a memo last saw, updated in place. */
export class ListSnapshot {
  readonly #items: Message[] = [];

  /** Length of the copy. */
  get length(): number {
    return this.#items.length;
  }

  /** Length of the common prefix of the copy and `list`, by identity. */
  commonPrefix(list: readonly Message[]): number {
    const items = this.#items;
    const limit = Math.min(items.length, list.length);
    let k = 0;
    while (k < limit && items[k] === list[k]) k++;
    return k;
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
  }
}
