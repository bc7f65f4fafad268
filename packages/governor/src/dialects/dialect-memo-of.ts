import { defaultMemos } from '../incremental/default-memos.js';
import type { DialectMemo } from '../incremental/dialect-memo.js';
import { memosOf } from '../incremental/governor-memos-registry.js';
import type { Governor } from '../governor.js';

/**
 * Where a dialect keeps its conversion caches: `governor`'s memo (the one-shot govern's without
 * one). Pass it to the conversions so a history governed again converts only its new part.
 * Throws TypeError for an object that is not a Governor made by `createGovernor`.
 */
export function dialectMemoOf(governor?: Governor): DialectMemo {
  if (governor === undefined) return defaultMemos().dialects;
  const memos = memosOf(governor);
  if (memos === undefined) throw new TypeError('dialectMemoOf: not a Governor made by createGovernor');
  return memos.dialects;
}
