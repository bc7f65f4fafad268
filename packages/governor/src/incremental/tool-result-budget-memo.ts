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

/** How many entries of `at` (ascending) are below `k`. */
function countBelow(at: readonly number[], k: number): number {
  let n = at.length;
  while (n > 0 && at[n - 1] >= k) n--;
  return n;
}
import { type Message } from '@nanobot/schema';
import type { ArtifactRequest, ArtifactStore } from '../offload/artifact-store.js';
import { describeResult, resultKey, type ToolResultBudgetOptions, type ToolResultChange } from '../steps/size/apply-tool-result-budget.js';
import { normalizeToolResultDetailed, offloadRequest, type NormalizedToolResult } from '../steps/size/normalize-tool-result.js';
import { REFERENCE_RULES, sameRules, type ToolResultRules } from '../steps/size/tool-rules.js';
import type { CallClock } from './call-clock.js';
import { ListSnapshot } from './list-snapshot.js';

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
  list: ListSnapshot;
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
    const prev = keyed ? this.#lists.get(first) : undefined;
    let from = 0;
    let out: Message[] | null = null;
    let changes: ToolResultChange[] = [];
    let changedAt: number[] = [];
    let offloads: ListMemo['offloads'] = [];
    let resumed = false;
    let firstReplaced = -1;
    if (prev !== undefined && prev.max === max && prev.store === store && prev.session === session && sameRules(prev.rules, rules)) {
      const k = prev.list.commonPrefix(messages);
      const past = prev.offloads.findIndex((o) => o.at >= k);
      const offloadsKept = past < 0 ? prev.offloads.length : past;
      if (k > 0 && prev.offloads.every((o, j) => j >= offloadsKept || stillAt(store!, o.request, o.location))) {
        from = k;
        // The output grows in place (cut back to the shared prefix first): later steps' memos
        // know its first slots from last time. Cut back before its first replacement, it is the
        // input again (the plain step then returns the input itself).
        out = prev.out !== null && prev.firstReplaced < k ? prev.out : null;
        if (out !== null) out.length = k;
        firstReplaced = out === null ? -1 : prev.firstReplaced;
        changes = prev.changes;
        changedAt = prev.changedAt;
        const nChanges = countBelow(changedAt, k);
        changes.length = nChanges;
        changedAt.length = nChanges;
        offloads = prev.offloads;
        offloads.length = offloadsKept;
        resumed = true;
      }
    }
    const stable = out === null ? 0 : out.length;
    let failed = false;
    for (let i = from; i < messages.length; i++) {
      const msg = messages[i];
      if (msg.role !== 'tool') {
        out?.push(msg);
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
        if (out === null) {
          out = messages.slice(0, i);
          firstReplaced = i;
        }
        out.push(replacement);
      } else {
        out?.push(msg);
      }
    }
    if (out !== null) {
      this.#clock.markShared(out);
      if (resumed && out === prev!.out) this.#clock.vouch(out, out, prev!.outCall, stable);
    }
    const result = out ?? (messages as Message[]);
    if (keyed) {
      if (failed) this.#lists.delete(first);
      else {
        const list = resumed ? prev!.list : new ListSnapshot(this.#clock);
        list.update(messages, from);
        this.#lists.set(first, { list, out, firstReplaced, outCall: this.#clock.active, changes, changedAt, offloads, max, store, session, rules });
      }
    }
    return { messages: result, changes: changes.slice() };
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#lists.delete(head);
  }
}
