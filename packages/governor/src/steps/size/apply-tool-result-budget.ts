import { pythonStr, type Message } from '@nanobot/schema';
import type { ArtifactStore } from '../../offload/artifact-store.js';
import { normalizeToolResultDetailed, type NormalizedToolResult } from './normalize-tool-result.js';
import { ListSnapshot } from '../../incremental/list-snapshot.js';
import { pyTruthy } from '../../internal/python.js';
import { DEFAULT_MAX_TOOL_RESULT_CHARS } from '../../constants.js';
import { defineStep } from '../step.js';

/** Options of {@link applyToolResultBudget}. */
export interface ToolResultBudgetOptions {
  maxToolResultChars: number;
  artifactStore?: ArtifactStore | null;
  sessionKey?: string | null;
}

/** One tool result the budget step changed. */
export interface ToolResultChange {
  toolCallId: string;
  name: string;
  action: 'offloaded' | 'truncated' | 'empty-marker' | 'offload-failed';
  location?: string;
  originalChars?: number;
  error?: string;
}

interface MemoEntry {
  content: unknown;
  max: number;
  store: ArtifactStore | null;
  session: string | null;
  id: string;
  name: string;
  out: Message;
  info: NormalizedToolResult;
}

// The same stored message normalised under the same options gives the same object, so
// per-message token caches stay warm across requests.
const memo = new WeakMap<Message, MemoEntry>();

interface ListMemo {
  /** Copy of the input (callers may push to their array between calls), updated in place. */
  list: ListSnapshot;
  /** Snapshot of the output, or null when it was the input unchanged. */
  out: Message[] | null;
  changes: ToolResultChange[];
  max: number;
  store: ArtifactStore | null;
  session: string | null;
}

// Last normalised list per history (keyed by its first message).
const listMemo = new WeakMap<Message, ListMemo>();

function describe(id: string, name: string, info: NormalizedToolResult): ToolResultChange[] {
  const out: ToolResultChange[] = [];
  if (info.emptyMarker) out.push({ toolCallId: id, name, action: 'empty-marker' });
  if (info.offloadError !== undefined) out.push({ toolCallId: id, name, action: 'offload-failed', error: info.offloadError });
  const size = info.originalChars !== undefined ? { originalChars: info.originalChars } : {};
  if (info.offloadedTo !== undefined) out.push({ toolCallId: id, name, action: 'offloaded', location: info.offloadedTo, ...size });
  if (info.truncated) out.push({ toolCallId: id, name, action: 'truncated', ...size });
  return out;
}

/**
 * {@link applyToolResultBudget} that also lists what changed. Writes offloaded results through
 * the store (synchronously); never mutates its input.
 */
export function applyToolResultBudgetDetailed(messages: readonly Message[], options: ToolResultBudgetOptions): { messages: Message[]; changes: ToolResultChange[] } {
  const store = options.artifactStore ?? null;
  const session = options.sessionKey ?? null;
  const max = options.maxToolResultChars;
  // A runner governs the same history again with a few messages appended: resume after the
  // part already normalised (verified by identity) instead of visiting every tool message.
  const first = messages[0];
  const prev = first !== undefined && first !== null && typeof first === 'object' ? listMemo.get(first) : undefined;
  let from = 0;
  let out: Message[] | null = null;
  let changes: ToolResultChange[] = [];
  if (prev !== undefined && prev.max === max && prev.store === store && prev.session === session && prev.list.length <= messages.length && prev.list.commonPrefix(messages) === prev.list.length) {
    from = prev.list.length;
    out = prev.out === null ? null : prev.out.slice();
    changes = prev.changes.slice();
  }
  let failed = false;
  for (let i = from; i < messages.length; i++) {
    const msg = messages[i];
    if (msg.role !== 'tool') {
      out?.push(msg);
      continue;
    }
    const rawId = (msg as { tool_call_id?: unknown }).tool_call_id;
    const id = pyTruthy(rawId) ? pythonStr(rawId) : `tool_${i}`;
    const name = pyTruthy(msg.name) ? pythonStr(msg.name) : 'tool';
    const hit = memo.get(msg);
    let replacement: Message | null;
    let info: NormalizedToolResult;
    if (hit && hit.content === msg.content && hit.max === max && hit.store === store && hit.session === session && hit.id === id && hit.name === name) {
      replacement = hit.out === msg ? null : hit.out;
      info = hit.info;
    } else {
      info = normalizeToolResultDetailed(id, name, msg.content, options);
      replacement = info.content === msg.content ? null : ({ ...msg, content: info.content } as Message);
      // A failed offload is retried on the next request rather than remembered.
      if (info.offloadError === undefined) memo.set(msg, { content: msg.content, max, store, session, id, name, out: replacement ?? msg, info });
      else failed = true;
    }
    if (info.emptyMarker || info.offloadedTo !== undefined || info.truncated || info.offloadError !== undefined) changes.push(...describe(id, name, info));
    if (replacement !== null) {
      out ??= messages.slice(0, i);
      out.push(replacement);
    } else {
      out?.push(msg);
    }
  }
  const result = out ?? (messages as Message[]);
  if (first !== undefined && first !== null && typeof first === 'object') {
    if (failed) listMemo.delete(first);
    else {
      const list = from > 0 && prev !== undefined ? prev.list : new ListSnapshot();
      list.update(messages, from);
      listMemo.set(first, { list, out: out === null ? null : out.slice(), changes, max, store, session });
    }
  }
  return { messages: result, changes: changes.slice() };
}

/**
 * Re-applies the per-result size rules to every tool message (reference
 * `apply_tool_result_budget`): {@link normalizeToolResult} with the message's id (or
 * `tool_<index>`) and name (or `tool`). Pure apart from writes through `artifactStore`; the
 * same array when nothing changes; unchanged messages are the input objects.
 */
export function applyToolResultBudget(messages: readonly Message[], options: ToolResultBudgetOptions): Message[] {
  return applyToolResultBudgetDetailed(messages, options).messages;
}

/** The step: every result within `maxToolResultChars` (offloaded through the store, else cut). */
export const applyToolResultBudgetStep = defineStep({
  name: 'applyToolResultBudget',
  may: ['rewrite'],
  noopOnClean: false,
  keepsClean: true,
  runs: () => true,
  run: (list, ctx) => {
    const { messages, changes } = applyToolResultBudgetDetailed(list, {
      maxToolResultChars: ctx.options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
      artifactStore: ctx.options.artifactStore ?? null,
      sessionKey: ctx.options.sessionKey ?? null,
    });
    return { messages, toolResults: changes };
  },
});
