// A list that is another with the `(conversation continued)` opener inserted, kept in step with
// it in place: the role steps (strict alternation, user first) hand one on while the history
// grows, where a copy per request cost a pass over the history and a list the young generation
// promoted (later steps' memos keep it a while).
import type { Message } from '@nanobot/schema';

/** `source[0, end)` with `opener` inserted at `first` (`first <= end`): a new list. */
export function listWithOpener(source: readonly Message[], opener: Message, first: number, end: number): Message[] {
  const list = source.slice(0, first);
  list.push(opener);
  for (let i = first; i < end; i++) list.push(source[i]);
  return list;
}

/**
 * Brings `list` (made by {@link listWithOpener} with the same `opener` and `first`) in step with
 * `source[0, end)`, given that its slots for `source[0, from)` are up to date: source slot `i`
 * stands at `i` before `first` and at `i + 1` from it. Overwrites, appends, then trims (no
 * shrinking and regrowing of the backing store). Returns how many leading slots of `list` were
 * left as they were. Mutates `list` only.
 */
export function syncListWithOpener(list: Message[], source: readonly Message[], first: number, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    const at = i < first ? i : i + 1;
    if (at < list.length) list[at] = source[i];
    else list.push(source[i]);
  }
  if (list.length > end + 1) list.length = end + 1;
  return from < first ? from : from + 1;
}
