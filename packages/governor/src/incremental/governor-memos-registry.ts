// Which memos belong to which Governor, for the dialect kit (a dialect converting for a
// Governor keeps its caches in that Governor's memos). Weak: gone with the Governor.
import type { GovernorMemos } from './memo-store.js';

const owners = new WeakMap<object, GovernorMemos<unknown>>();

/** Records that `memos` are `governor`'s. */
export function registerMemos(governor: object, memos: GovernorMemos<unknown>): void {
  owners.set(governor, memos);
}

/** The memos of `governor`, if it is a Governor made by createGovernor. */
export function memosOf(governor: object): GovernorMemos<unknown> | undefined {
  return owners.get(governor);
}
