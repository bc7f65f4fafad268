// The placeholderThoughtSignatures step (Gemini) resumed per history. The step rewrites only
// the current turn (the assistant steps after the last user message), but the plain step finds
// that turn and copies the whole list on every call. Here the last user message is found from
// what the previous call knew (the common prefix is the same objects), the current turn's
// rewrites already made are kept while that turn goes on, and the output is a list the memo
// owns, updated in place: a repeated or grown history costs what was appended.
import type { Message } from '@nanobot/schema';
import type { ReportedMessage } from '../report/govern-report.js';
import { DeferredEntries } from '../report/deferred-list.js';
import { ref } from '../report/reported-message.js';
import type { DerivationCache } from '../steps/derivation-cache.js';
import { needsPlaceholder, placeholderKey, placeholderSigned } from '../steps/target/placeholder-thought-signatures.js';
import type { CallClock } from './call-clock.js';
import { ListSnapshot } from './list-snapshot.js';

/** The step's output with its report entries. */
export interface ReportedPlaceholders {
  messages: Message[];
  removed: ReportedMessage[];
  added: ReportedMessage[];
}

interface PlaceholderMemo {
  input: ListSnapshot;
  placeholder: string;
  /** The derivation key of the placeholder's copies (made once per memo, not per message). */
  key: string;
  /** Index of the last user message in the last input (-1: none). */
  lastUser: number;
  /**
   * The input with the rewritten steps in place (equal to the input while nothing is rewritten),
   * or null until something was.
   */
  out: Message[] | null;
  /** The call that last handed `out` out, and the first slot changed since (later steps' copies share the slots before). */
  outCall: number;
  touched: number;
  /** The rewritten indices (ascending; input and output indices are the same). */
  changed: number[];
}

/** Index of the last user message of `messages`, looking at `[from, to)` backwards; -1 when none. */
function lastUserIn(messages: readonly Message[], from: number, to: number): number {
  for (let i = to - 1; i >= from; i--) if (messages[i].role === 'user') return i;
  return -1;
}

/** One Governor's resumed placeholder rewrites, per history. */
export class PlaceholderMemos {
  readonly #clock: CallClock;
  readonly #derive: DerivationCache;
  readonly #byHead = new WeakMap<Message, PlaceholderMemo>();

  constructor(clock: CallClock, derive: DerivationCache) {
    this.#clock = clock;
    this.#derive = derive;
  }

  /**
   * `placeholderThoughtSignatures(messages, placeholder)` with its report entries, resumed from
   * the last call on the same history. Same result; the same array when nothing is rewritten,
   * else a list the memo owns (changed by the next call: only govern's later steps may read it).
   */
  run(messages: readonly Message[], placeholder: string): ReportedPlaceholders {
    const n = messages.length;
    if (n === 0) return { messages: messages as Message[], removed: [], added: [] };
    const head = messages[0];
    let memo = this.#byHead.get(head);
    let k = 0;
    if (memo !== undefined && memo.placeholder === placeholder) k = memo.input.commonPrefix(messages);
    if (k === 0 || memo === undefined) {
      memo = { input: new ListSnapshot(this.#clock), placeholder, key: placeholderKey(placeholder), lastUser: -1, out: null, outCall: 0, touched: 0, changed: [] };
      k = 0;
    }
    // The last user message: in the new tail, else the one known (the prefix is the same objects
    // and held none after it), else looked for before the tail.
    let lastUser = lastUserIn(messages, k, n);
    if (lastUser < 0) lastUser = memo.lastUser < k ? memo.lastUser : lastUserIn(messages, 0, k);
    // Rewrites of the same turn inside the shared prefix stay; the rest of the turn is looked at.
    const sameTurn = lastUser === memo.lastUser;
    const changed = sameTurn ? memo.changed.filter((i) => i < k) : [];
    for (let i = sameTurn ? Math.max(lastUser + 1, k) : lastUser + 1; i < n; i++) if (needsPlaceholder(messages[i])) changed.push(i);

    const before = memo.out;
    const previous = memo.changed;
    memo.lastUser = lastUser;
    memo.changed = changed;
    memo.input.update(messages, k);
    this.#byHead.set(head, memo);
    if (changed.length === 0 && before === null) return { messages: messages as Message[], removed: [], added: [] };
    const { key } = memo;
    const derive = this.#derive;
    const signed = (i: number): Message => placeholderSigned(messages[i], placeholder, derive, key);
    if (before === null) {
      const out = messages.slice();
      for (const i of changed) out[i] = signed(i);
      memo.out = out;
    } else {
      // `before` equals the previous input except at its rewritten slots, which are restored or
      // kept. It is kept in step while a turn needs no rewrite (equal to the input then), so the
      // next turn that does gets the same list back, not a copy of the history that every later
      // step's memo would take afresh. Each slot's message is made once (a derivation lookup).
      const out = before;
      let touched = memo.touched;
      // Rewritten last time, not now: the input's message again (those rewritten now come next).
      for (const i of previous) if (i < k && out[i] !== messages[i] && !binaryHas(changed, i)) { out[i] = messages[i]; touched = Math.min(touched, i); }
      for (const i of changed) {
        if (i >= k) continue;
        const m = signed(i);
        if (out[i] !== m) { out[i] = m; touched = Math.min(touched, i); }
      }
      const overlap = Math.min(out.length, n);
      for (let i = k; i < overlap; i++) {
        const m = binaryHas(changed, i) ? signed(i) : messages[i];
        if (out[i] !== m) { out[i] = m; touched = Math.min(touched, i); }
      }
      for (let i = overlap; i < n; i++) out.push(binaryHas(changed, i) ? signed(i) : messages[i]);
      if (out.length > n) { out.length = n; touched = Math.min(touched, n); }
      memo.touched = touched;
      if (changed.length === 0) return { messages: messages as Message[], removed: [], added: [] };
      // The output's first `touched` slots are what the later steps' memos copied when it was last handed out.
      this.#clock.vouch(out, out, memo.outCall, touched);
    }
    memo.outCall = this.#clock.active;
    const out = memo.out!;
    memo.touched = out.length;
    // The output is the input up to its first rewritten slot: the copies later steps take of the
    // input in this call (the recorder's estimate of it) know so without a pass over both.
    this.#clock.vouch(out, messages, this.#clock.active, changed[0]);
    // The entries are made when the report's lists are first read (most reports are never
    // read): ~2.8 µs a call on Node 20 for a turn of three steps when made here, every call of
    // a history whose current turn needs the placeholder. The messages are taken now: both
    // lists are changed in place by the next call (`changed` itself is replaced, not changed).
    const entries = (taken: readonly Message[]) => () => Object.freeze(changed.map((i, j) => ref(taken[j], i, 'thought-signature-placeholder')));
    return new DeferredEntries(this.#clock.markShared(out), entries(changed.map((i) => messages[i])), entries(changed.map((i) => out[i])));
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#byHead.delete(head);
  }
}

/** Whether the ascending list `xs` holds `x`. */
function binaryHas(xs: readonly number[], x: number): boolean {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < xs.length && xs[lo] === x;
}
