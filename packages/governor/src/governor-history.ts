// A conversation history a Governor owns and that only grows. A caller's own array can have any
// earlier slot replaced between two requests, so every `governor.govern(array)` proves it was not,
// by a pass over the whole list (pointer comparisons: ~0.2 ms at 100,000 messages, the one cost of
// an over-budget request that grows with the history). The array behind a GovernorHistory is
// reachable only through `append`, so the Governor knows its earlier slots are the ones it saw and
// skips that pass: a request on a long session then costs what the appended messages cost.
import type { Message } from '@nanobot/schema';
import { ValidationError } from '@nanobot/schema';
import type { MessageLike } from './message-like.js';

/**
 * A conversation history that only grows, created by `Governor.createHistory` and governed by
 * passing it to that Governor's `govern` in place of an array. Messages are values: change a
 * message by appending a new one, never by mutating an appended object (the Governor, like with
 * arrays, does not look at fields of a message it has seen before).
 */
export interface GovernorHistory<M extends MessageLike = Message> extends Iterable<M> {
  /** How many messages it holds. */
  readonly length: number;
  /** The message at `index` (negative: from the end), or undefined. */
  at(index: number): M | undefined;
  /**
   * Appends `messages` in order. Throws ValidationError, appending none of them, when one is not
   * a message object. Contract: does not copy or freeze the objects; the caller must not mutate
   * them afterwards.
   */
  append(...messages: M[]): void;
  /** A copy of the messages (the caller's to change). */
  toArray(): M[];
}

/** Throws ValidationError naming the first entry of `messages` that is not a message object. */
function checkMessages(messages: readonly unknown[], what: string): void {
  messages.forEach((m, i) => {
    if (m === null || typeof m !== 'object' || Array.isArray(m)) {
      throw new ValidationError(`${what}: message ${i} must be an object (none of the ${messages.length} was taken)`, [i]);
    }
  });
}

/**
 * A history holding a copy of `initial` (checked: throws ValidationError for an entry that is not
 * an object), and the array behind it, which no one else holds and only `append` grows.
 */
export function ownedHistory<M extends MessageLike>(initial: readonly M[]): { history: GovernorHistory<M>; items: M[] } {
  if (!Array.isArray(initial)) throw new ValidationError('createHistory: messages must be an array');
  checkMessages(initial, 'createHistory');
  const items = initial.slice();
  const history: GovernorHistory<M> = {
    get length() {
      return items.length;
    },
    at: (index) => items.at(index),
    append(...messages) {
      checkMessages(messages, 'GovernorHistory.append');
      for (const m of messages) items.push(m);
    },
    toArray: () => items.slice(),
    [Symbol.iterator]: () => items[Symbol.iterator](),
  };
  return { history, items };
}
