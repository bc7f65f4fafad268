// Whether a list is already structurally clean for the repair steps: no placeholder turns,
// every tool call a valid object with a unique string id, answered exactly once by the tool
// messages right after its turn, no other tool messages. For such a list every repair step
// (placeholder/malformed strip, id repair, orphan drop, regroup, backfill) is a no-op, so the
// governor can skip them. The scan is resumable: a runner governs the same history again with
// a few messages appended, and only the new messages are scanned (the old ones are verified by
// identity, a pointer comparison each).
import type { Message } from '@nanobot/schema';
import { PLACEHOLDER_TEXTS } from '../constants.js';
import { ListSnapshot } from './list-snapshot.js';
import { pyStrip } from '../internal/python.js';
import { isValidToolCall } from '../internal/tool-calls.js';

interface ScanState {
  /** The list scanned (a copy: callers may push to their array between calls). */
  list: ListSnapshot;
  declared: Set<string>;
  open: Set<string> | null;
  /** Index of the assistant turn whose calls are `open`. */
  openAt: number;
  clean: boolean;
}

const states = new WeakMap<Message, ScanState>();

function step(state: ScanState, msg: Message, index: number): void {
  if (msg === null || typeof msg !== 'object') {
    state.clean = false;
    return;
  }
  const calls = (msg as { tool_calls?: unknown }).tool_calls;
  if (msg.role === 'tool') {
    const id = (msg as { tool_call_id?: unknown }).tool_call_id;
    if (typeof id !== 'string' || state.open === null || !state.open.delete(id) || calls !== undefined) state.clean = false;
    return;
  }
  if (state.open !== null && state.open.size > 0) state.clean = false;
  state.open = null;
  if (calls === undefined || calls === null || (Array.isArray(calls) && calls.length === 0)) {
    if (msg.role === 'assistant' && typeof msg.content === 'string' && msg.content.includes('[') && PLACEHOLDER_TEXTS.has(pyStrip(msg.content))) {
      state.clean = false;
    }
    return;
  }
  if (msg.role !== 'assistant' || !Array.isArray(calls)) {
    state.clean = false;
    return;
  }
  const open = new Set<string>();
  for (const call of calls) {
    const id = (call as { id?: unknown } | null)?.id;
    if (!isValidToolCall(call) || typeof id !== 'string' || id.length === 0 || state.declared.has(id)) {
      state.clean = false;
      return;
    }
    state.declared.add(id);
    open.add(id);
  }
  state.open = open;
  state.openAt = index;
}

/** True when the repair steps would all leave `messages` unchanged. */
export function isStructurallyClean(messages: readonly Message[]): boolean {
  const s = scan(messages);
  return s.clean && s.openTail === null;
}

/**
 * The scan's verdict: `clean` when every repair but the backfill is a no-op, and `openTail`
 * when, besides, the last assistant turn's calls (at `index`, ids in call order) are not all
 * answered — a history cut while a tool batch ran, the usual state of a runner's request.
 */
export function structureScan(messages: readonly Message[]): { clean: boolean; openTail: { index: number; ids: ReadonlySet<string> } | null } {
  return scan(messages);
}

function scan(messages: readonly Message[]): { clean: boolean; openTail: { index: number; ids: ReadonlySet<string> } | null } {
  if (messages.length === 0) return { clean: true, openTail: null };
  const first = messages[0];
  if (first === null || typeof first !== 'object') return { clean: false, openTail: null };
  let state = states.get(first);
  let from = 0;
  if (state !== undefined && state.clean && state.list.length <= messages.length && state.list.commonPrefix(messages) === state.list.length) {
    from = state.list.length;
    // The open set is consumed by the scan: resume on a copy so the snapshot stays right.
    if (state.open !== null) state = { ...state, open: new Set(state.open), declared: state.declared };
  } else {
    state = { list: new ListSnapshot(), declared: new Set(), open: null, openAt: -1, clean: true };
  }
  for (let i = from; i < messages.length && state.clean; i++) step(state, messages[i], i);
  // Updated in place: a repeated list allocates nothing, a grown one only its new slots.
  state.list.update(messages, from);
  states.set(first, state);
  const openTail = state.clean && state.open !== null && state.open.size > 0 ? { index: state.openAt, ids: new Set(state.open) } : null;
  return { clean: state.clean, openTail };
}
