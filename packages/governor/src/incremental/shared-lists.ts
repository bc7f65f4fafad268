// Lists the governor's per-history memos hand to later steps of the same call and keep (or
// reuse) for the next call. They never leave govern: it returns a copy of one that ends up as
// its result, so a caller changing the result cannot change a memo.
import type { Message } from '@nanobot/schema';
import { ListSnapshot, markImmutable } from './list-snapshot.js';

const shared = new WeakSet<readonly Message[]>();

/** Marks `list` as owned by a memo; returns it. */
export function markShared<T extends readonly Message[]>(list: T): T {
  shared.add(list);
  return list;
}

/** `list` itself, or a copy when a memo owns it. */
export function releasable(list: Message[]): Message[] {
  return shared.has(list) ? list.slice() : list;
}

const appended = new WeakMap<Message, { input: ListSnapshot; fills: readonly Message[]; list: Message[] }>();

/**
 * `[...messages, ...fills]`, the same (shared) list while `messages` holds the same objects and
 * `fills` is the same array, so the later steps' memos and the estimate recognise it.
 */
export function appendedList(messages: readonly Message[], fills: readonly Message[]): Message[] {
  const head = messages[0];
  const hit = appended.get(head);
  if (hit !== undefined && hit.fills === fills && hit.input.equals(messages)) return hit.list;
  const input = hit?.input ?? new ListSnapshot();
  input.update(messages, input.commonPrefix(messages));
  const list = markImmutable(markShared([...messages, ...fills]));
  appended.set(head, { input, fills, list });
  return list;
}

const checked = new WeakMap<object, ListSnapshot>();

/**
 * How many leading entries of `messages` are known to be message objects: the part the last
 * list checked with the same first entry shares with it (by identity). Call {@link markChecked}
 * once the rest passed.
 */
export function checkedPrefix(messages: readonly unknown[]): number {
  const first = messages[0];
  if (first === null || typeof first !== 'object') return 0;
  const snap = checked.get(first);
  if (snap === undefined) return 0;
  const list = messages as readonly Message[];
  const k = snap.commonPrefix(list);
  // The one full comparison of the caller's list in a govern call: the other memos rely on it.
  snap.vouchFor(list, k);
  return k;
}

/** Records that every entry of `messages` (at least one) is a message object. */
export function markChecked(messages: readonly Message[], known: number): void {
  const head = messages[0];
  const snap = checked.get(head) ?? new ListSnapshot();
  snap.update(messages, known);
  checked.set(head, snap);
}
