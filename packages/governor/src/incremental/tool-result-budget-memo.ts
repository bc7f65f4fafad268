// The budget step (applyToolResultBudgetDetailed) resumed across calls: the same stored result
// normalised under the same options gives the same object (per-message token caches stay
// warm), and a history governed again with a few messages appended resumes after the part
// already normalised (verified by identity) instead of visiting every tool message. A result
// offloaded earlier is saved again on every call (`persist` is the store's promise that the
// location holds the body; a file deleted since is written back), and when the store answers
// with another location the result is normalised afresh. A history whose end changed (results
// of the open turn arriving where backfilled ones stood, an in-flight result replaced) resumes
// after the part it still shares with the previous one: the output, its changes and offloads
// are cut back to that prefix first (each is one per input message or records its index).
import { type Message } from '@nanobot/schema';
import type { ArtifactRequest, ArtifactStore } from '../offload/artifact-store.js';
import { describeResult, resultKey, type ToolResultBudgetOptions, type ToolResultChange } from '../steps/size/apply-tool-result-budget.js';
import { normalizeToolResultDetailed, offloadRequest, type NormalizedToolResult } from '../steps/size/normalize-tool-result.js';
import { REFERENCE_RULES, sameRules, type ToolResultRules } from '../steps/size/tool-rules.js';
import type { CallClock } from './call-clock.js';
import { ListSnapshot } from './list-snapshot.js';
import { resumeFold } from './resume-fold.js';

interface ResultMemo {
  content: unknown;
  max: number;
  store: ArtifactStore | null;
  session: string | null;
  id: string;
  name: string;
  rules: ToolResultRules;
  out: Message;
  info: NormalizedToolResult;
  /** What was offloaded (saved again on every call), else null. */
  request: ArtifactRequest | null;
}

interface ListMemo {
  /** Copy of the input (callers may push to their array between calls), updated in place. */
  input: ListSnapshot;
  /** The output (a list this memo owns, grown in place), or null when it was the input unchanged. */
  out: Message[] | null;
  /** Index of the first replaced message (where `out` starts to differ from the input), -1 without `out`. */
  firstReplaced: number;
  /** The call that last handed `out` out. */
  outCall: number;
  changes: ToolResultChange[];
  /** Per change, the index of the input message it describes (ascending). */
  changedAt: number[];
  /** The offloads of the normalised part, saved again before it is reused (ascending `at`). */
  offloads: { request: ArtifactRequest; location: string; at: number }[];
  max: number;
  store: ArtifactStore | null;
  session: string | null;
  rules: ToolResultRules;
}

/** How many of `items` (ascending by `at`) are at indices below `k`. */
function countBelow<T>(items: readonly T[], k: number, at: (item: T) => number): number {
  let n = items.length;
  while (n > 0 && at(items[n - 1]) >= k) n--;
  return n;
}

/** Rewinds `memo` to its state after the first `k` inputs (see resumeFold's contract). */
function rewind(memo: ListMemo, k: number): void {
  const changes = countBelow(memo.changedAt, k, (i) => i);
  memo.changes.length = changes;
  memo.changedAt.length = changes;
  memo.offloads.length = countBelow(memo.offloads, k, (o) => o.at);
  if (memo.out === null) return;
  // Cut back before its first replacement, the output is the input again (the plain step then
  // returns the input itself); else it keeps its first `k` slots, one per input message.
  if (memo.firstReplaced >= k) {
    memo.out = null;
    memo.firstReplaced = -1;
  } else {
    memo.out.length = k;
  }
}

/** Saves `request` again; true when the store still answers with `location`. */
function stillAt(store: ArtifactStore, request: ArtifactRequest, location: string): boolean {
  try {
    return store.persist(request) === location;
  } catch {
    return false;
  }
}

/** One Governor's resumed tool-result budgets. */
export class ToolResultBudgetMemos {
  readonly #clock: CallClock;
  readonly #results = new WeakMap<Message, ResultMemo>();
  readonly #lists = new WeakMap<Message, ListMemo>();

  constructor(clock: CallClock) {
    this.#clock = clock;
  }

  /** `applyToolResultBudgetDetailed(messages, options)`, resumed (see the file comment). */
  run(messages: readonly Message[], options: ToolResultBudgetOptions): { messages: Message[]; changes: ToolResultChange[] } {
    const store = options.artifactStore ?? null;
    const session = options.sessionKey ?? null;
    const max = options.maxToolResultChars;
    const rules = options.rules ?? REFERENCE_RULES;
    const first = messages[0];
    const keyed = first !== undefined && first !== null && typeof first === 'object';
    let memo: ListMemo | undefined;
    let from = 0;
    const kept = keyed ? this.#lists.get(first) : undefined;
    if (kept !== undefined && kept.max === max && kept.store === store && kept.session === session && sameRules(kept.rules, rules)) {
      ({ memo, from } = resumeFold(this.#lists, messages, rewind));
      // An offload of the part kept that the store no longer answers for: normalise afresh.
      if (memo !== undefined && !memo.offloads.every((o) => stillAt(store!, o.request, o.location))) {
        memo = undefined;
        from = 0;
      }
    }
    const resumed = memo !== undefined;
    const before = memo?.out ?? null;
    const beforeCall = memo?.outCall ?? 0;
    memo ??= { input: new ListSnapshot(this.#clock), out: null, firstReplaced: -1, outCall: 0, changes: [], changedAt: [], offloads: [], max, store, session, rules };
    const { changes, changedAt, offloads } = memo;
    // The output grows in place: later steps' memos know its first slots from last time.
    const stable = before === null ? 0 : before.length;
    let failed = false;
    for (let i = from; i < messages.length; i++) {
      const msg = messages[i];
      if (msg.role !== 'tool') {
        memo.out?.push(msg);
        continue;
      }
      const { id, name } = resultKey(msg, i);
      const hit = this.#results.get(msg);
      let replacement: Message | null;
      let info: NormalizedToolResult;
      let request: ArtifactRequest | null;
      if (hit !== undefined && hit.content === msg.content && hit.max === max && hit.store === store && hit.session === session && sameRules(hit.rules, rules) && hit.id === id && hit.name === name
        && (hit.request === null || stillAt(store!, hit.request, hit.info.offloadedTo!))) {
        replacement = hit.out === msg ? null : hit.out;
        info = hit.info;
        request = hit.request;
      } else {
        info = normalizeToolResultDetailed(id, name, msg.content, options);
        replacement = info.content === msg.content ? null : ({ ...msg, content: info.content } as Message);
        request = info.offloadedTo === undefined ? null : offloadRequest(msg.content, { ...options, toolCallId: id })!.request;
        // A failed offload is retried on the next request rather than remembered.
        if (info.offloadError === undefined) this.#results.set(msg, { content: msg.content, max, store, session, id, name, rules, out: replacement ?? msg, info, request });
        else failed = true;
      }
      if (request !== null) offloads.push({ request, location: info.offloadedTo!, at: i });
      if (info.emptyMarker || info.offloadedTo !== undefined || info.truncated || info.offloadError !== undefined) {
        for (const change of describeResult(id, name, info)) {
          changes.push(change);
          changedAt.push(i);
        }
      }
      if (replacement !== null) {
        if (memo.out === null) {
          memo.out = messages.slice(0, i);
          memo.firstReplaced = i;
        }
        memo.out.push(replacement);
      } else {
        memo.out?.push(msg);
      }
    }
    if (memo.out !== null) {
      this.#clock.markShared(memo.out);
      if (resumed && memo.out === before) this.#clock.vouch(memo.out, memo.out, beforeCall, stable);
    }
    const result = memo.out ?? (messages as Message[]);
    if (keyed) {
      if (failed) this.#lists.delete(first);
      else {
        memo.input.update(messages, from);
        memo.outCall = this.#clock.active;
        this.#lists.set(first, memo);
      }
    }
    return { messages: result, changes: changes.slice() };
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#lists.delete(head);
  }
}
