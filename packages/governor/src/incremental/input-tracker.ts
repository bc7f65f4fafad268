// A conversation's input as the previous call saw it, to resume from: the one full comparison
// of the caller's list in a govern call (by identity, a pointer pass; the other memos rely on
// it), continued by content where the objects differ. A rebuilt but equal prefix (a session
// reloaded from storage, a prompt the AI SDK builds anew each step) is then governed as the
// objects seen before — every memo resumes — and the copy handed back holds the caller's own
// objects again wherever a kept message stood.
import type { Message } from '@nanobot/schema';
import type { CallClock } from './call-clock.js';
import { ListSnapshot } from './list-snapshot.js';
import { sameContent } from './same-content.js';

/** What {@link InputTracker.resume} found. */
export interface ResumedInput {
  /** The list to govern: the caller's own, or (rebuilt prefix) the earlier objects where equal. */
  list: readonly Message[];
  /** Earlier object → the caller's equal object, for the rebuilt positions (null: none). */
  restore: Map<Message, Message> | null;
}

/** One conversation's last input (see the file comment). */
export class InputTracker {
  readonly #seen: ListSnapshot;

  constructor(clock: CallClock) {
    this.#seen = new ListSnapshot(clock);
  }

  /** The first message of the last input, or undefined. */
  get head(): Message | undefined {
    return this.#seen.length > 0 ? this.#seen.at(0) : undefined;
  }

  /**
   * Compares `history` (an array whose entries are not checked yet) with the last input, has
   * `check(from)` check the entries from `from` on (the ones before are known message objects;
   * it throws for a bad entry), and takes `history` as the new last input.
   */
  resume(history: readonly unknown[], check: (from: number) => void): ResumedInput {
    const seen = this.#seen;
    const k = seen.commonPrefix(history as readonly Message[]);
    seen.vouchFor(history as readonly Message[], k);
    const limit = Math.min(seen.length, history.length);
    let j = k;
    let rebuilt: number[] | null = null;
    while (j < limit) {
      const m = history[j] as unknown;
      const old = seen.at(j);
      if (m !== old) {
        if (m === null || typeof m !== 'object' || Array.isArray(m) || (m as Message).role !== old.role || !sameContent(m, old)) break;
        (rebuilt ??= []).push(j);
      }
      j++;
    }
    check(j);
    const messages = history as readonly Message[];
    if (rebuilt === null) {
      seen.update(messages, k);
      return { list: messages, restore: null };
    }
    const list: Message[] = new Array<Message>(messages.length);
    for (let i = 0; i < j; i++) list[i] = seen.at(i);
    for (let i = j; i < messages.length; i++) list[i] = messages[i];
    const restore = new Map<Message, Message>();
    for (const i of rebuilt) restore.set(seen.at(i), messages[i]);
    seen.vouchFor(list, j);
    seen.update(list, j);
    return { list, restore };
  }
}
