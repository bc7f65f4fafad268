// Whether a list is structurally clean for the repair steps: no placeholder turns, every tool
// call a valid object with a unique string id, answered exactly once by the tool messages right
// after its turn, no other tool messages. Every step declared `noopOnClean` returns such a list
// unchanged (the pipeline's property test proves it), so the governor may skip them. The scan
// is a left fold over the messages; incremental/structure-scan.ts resumes it across calls.
import { pythonStrip } from '@nanobot/schema';
import type { Message } from '@nanobot/schema';
import { PLACEHOLDER_TEXTS } from '../../constants.js';
import { isValidToolCall } from '../../internal/tool-calls.js';

/** The fold's state after some messages. */
export interface ScanState {
  /** Every call id declared so far. */
  declared: Set<string>;
  /** Calls of the last assistant turn not yet answered (null after any other message). */
  open: Set<string> | null;
  /** Index of the assistant turn whose calls are `open`. */
  openAt: number;
  clean: boolean;
}

/** The state before any message. */
export function initialScanState(): ScanState {
  return { declared: new Set(), open: null, openAt: -1, clean: true };
}

/** Folds message `msg` at `index` into `state` (in place). */
export function scanStep(state: ScanState, msg: Message, index: number): void {
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
    if (msg.role === 'assistant' && typeof msg.content === 'string' && msg.content.includes('[') && PLACEHOLDER_TEXTS.has(pythonStrip(msg.content))) {
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

/** What the scan says of a list (see {@link structureScan}). */
export interface StructureVerdict {
  /** Every step declared `noopOnClean` leaves the list unchanged. */
  clean: boolean;
  /** With `clean`: the last assistant turn's calls (at `index`, ids in call order) not all answered yet. */
  openTail: { index: number; ids: ReadonlySet<string> } | null;
}

/** The verdict a state stands for. */
export function scanVerdict(state: ScanState): StructureVerdict {
  const openTail = state.clean && state.open !== null && state.open.size > 0 ? { index: state.openAt, ids: new Set(state.open) } : null;
  return { clean: state.clean, openTail };
}

/**
 * The scan's verdict: `clean` when every repair but the backfill is a no-op, and `openTail`
 * when, besides, the last assistant turn's calls are not all answered — a history cut while a
 * tool batch ran, the usual state of a runner's request. Pure.
 */
export function structureScan(messages: readonly Message[]): StructureVerdict {
  const state = initialScanState();
  for (let i = 0; i < messages.length && state.clean; i++) scanStep(state, messages[i], i);
  return scanVerdict(state);
}

/** True when the repair steps would all leave `messages` unchanged (clean, no open tail). */
export function isStructurallyClean(messages: readonly Message[]): boolean {
  const s = structureScan(messages);
  return s.clean && s.openTail === null;
}
