// The opening every per-history fold memo shares (legalize, separation, alternation, the
// tool-result budget): find the memo kept for the history by its first message, see how far
// its last input still holds, and rewind it to there, or drop it when nothing holds.
import type { Message } from '@nanobot/schema';
import type { ListSnapshot } from './list-snapshot.js';

/** A memo that folds a list from its start: the input it last folded. */
export interface FoldMemo {
  readonly input: ListSnapshot;
}

/**
 * The memo kept in `byHead` for the history `messages` starts, and the index its fold resumes
 * from (the prefix its last input shares with `messages`). A memo that shares nothing is dropped
 * (`memo` undefined, `from` 0); one whose input ran further is rewound to `from` first.
 * `messages` is not empty. Contract: `rewind` mutates only the memo it is given, is called at most
 * once, and does not throw.
 */
export function resumeFold<M extends FoldMemo>(byHead: WeakMap<Message, M>, messages: readonly Message[], rewind: (memo: M, from: number) => void): { memo: M | undefined; from: number } {
  const memo = byHead.get(messages[0]);
  if (memo === undefined) return { memo: undefined, from: 0 };
  const from = memo.input.commonPrefix(messages);
  if (from === 0) return { memo: undefined, from: 0 };
  if (from < memo.input.length) rewind(memo, from);
  return { memo, from };
}
