// The kept walks over growing histories that both estimators resume (the reference's prompt walk
// and the provider estimator's running sums): one implementation, one flat layout. Histories
// grow by appending, so the last walks over a history are kept per first message object; a
// re-estimate compares the prefix by identity (message objects and the fields the estimates
// read), resumes the walk where it diverges and only handles the rest.
import { ValidationError } from '../errors/errors.js';
import { isRecord } from '../util/is-record.js';
import type { Message } from '../messages/message.js';

/** Walks kept per first message: a caller estimates a stored history and the copy made of it on every request. */
const WALKS_PER_HEAD = 3;
/** A list that replaces at most this many of a walk's last messages resumes that walk in place. */
const TAIL_REWALK = 64;
/** Entries per walked message in {@link PrefixWalk.seen}. */
const STRIDE = 7;

/** One kept walk: per message, its object and the fields read, and the walk's state after it. */
export interface PrefixWalk<S> {
  /** `[record, content, tool_calls, role, name, tool_call_id, reasoning_content]` per message. */
  seen: unknown[];
  /** State after message i. */
  states: S[];
}

/** The kept walks of one estimator, by first message object (weakly: they go with it). */
export type PrefixWalks<S> = WeakMap<object, PrefixWalk<S>[]>;

/** `message` as a record; throws {@link ValidationError} (naming `where`) for a non-object. */
export function messageRecord(message: unknown, where: string): Record<string, unknown> {
  if (!isRecord(message)) {
    throw new ValidationError(`${where}: a message must be an object, got ${message === null ? 'null' : Array.isArray(message) ? 'array' : typeof message}`);
  }
  return message;
}

/** How many leading messages `walk` saw as they are now (by objects alone with `sameObjects`). */
function matchLength<S>(walk: PrefixWalk<S>, messages: readonly Message[], sameObjects: boolean): number {
  const { seen } = walk;
  const limit = Math.min(messages.length, walk.states.length);
  let k = 0;
  if (sameObjects) {
    // Messages are values to this caller: the objects alone identify the walk (a pointer pass).
    for (let j = 0; k < limit && seen[j] === messages[k]; k++, j += STRIDE);
    return k;
  }
  for (let j = 0; k < limit; k++, j += STRIDE) {
    const r = messages[k] as Record<string, unknown>;
    if (
      seen[j] !== r ||
      seen[j + 1] !== r['content'] ||
      seen[j + 2] !== r['tool_calls'] ||
      seen[j + 3] !== r['role'] ||
      seen[j + 4] !== r['name'] ||
      seen[j + 5] !== r['tool_call_id'] ||
      seen[j + 6] !== r['reasoning_content']
    ) {
      break;
    }
  }
  return k;
}

/**
 * The kept walk to continue for `messages` (non-empty) and how many of its messages still hold
 * (`[walk, k]`): its states after message k are dropped, the caller walks on from k with
 * {@link walkStep}. The list extends a walk, is a prefix of it, or replaces only its last few
 * messages: that walk resumes in place; otherwise a new walk starts from the longest shared
 * prefix, so the walks kept for the other lists stay whole. Most recently used first.
 */
export function resumeWalk<S>(walks: PrefixWalks<S>, messages: readonly Message[], sameObjects: boolean): [PrefixWalk<S>, number] {
  const n = messages.length;
  const first = messageRecord(messages[0], 'estimatePromptTokens: messages[0]');
  let list = walks.get(first);
  if (list === undefined) {
    list = [];
    walks.set(first, list);
  }
  let best = -1;
  let k = 0;
  for (let m = 0; m < list.length; m++) {
    const len = matchLength(list[m], messages, sameObjects);
    if (best < 0 || len > k) {
      best = m;
      k = len;
    }
    if (k === n) break; // the usual warm case: the whole list was walked before
  }
  let walk: PrefixWalk<S>;
  if (best >= 0 && (k === n || k + TAIL_REWALK >= list[best].states.length)) {
    walk = list[best];
    list.splice(best, 1);
  } else {
    const from = best >= 0 ? list[best] : undefined;
    walk = { seen: from ? from.seen.slice(0, k * STRIDE) : [], states: from ? from.states.slice(0, k) : [] };
    if (list.length >= WALKS_PER_HEAD) list.pop();
  }
  list.unshift(walk);
  if (k < n) {
    walk.seen.length = k * STRIDE;
    walk.states.length = k;
  }
  return [walk, k];
}

/** Records that `walk` went past message `r`, with `state` after it. */
export function walkStep<S>(walk: PrefixWalk<S>, r: Record<string, unknown>, state: S): void {
  walk.seen.push(r, r['content'], r['tool_calls'], r['role'], r['name'], r['tool_call_id'], r['reasoning_content']);
  walk.states.push(state);
}
