// Failures stored as data (issue 29, item 4). An interrupted turn, a failed model request and an
// interrupted tool call are stored as rows that say so in a `_failure` field, never as text in the
// assistant's voice; what the model reads in their place is a neutral note, built here so that the
// session's replay, the runner and the governor agree on it. Rows written before this (the
// reference's texts stored as assistant replies and tool results) are recognised on read.
import type { Message } from './message.js';

/** What went wrong: the run was stopped (`/stop`, a crash, shutdown), or the model request failed. */
export type MessageFailureKind = 'interrupted' | 'model_error';

/**
 * The `_failure` field of a stored row. On an assistant row with empty content it stands for a
 * turn that ended without a reply; on a tool row, for a call that never finished.
 */
export interface MessageFailure {
  readonly kind: MessageFailureKind;
  /** What the user was told (a model error's text, at most 500 characters); never sent to the model. */
  readonly detail?: string;
}

/** A failure found on a stored row, with where it sits and whether an earlier version wrote it. */
export interface StoredFailure extends MessageFailure {
  /** `turn`: a turn closed without a reply (assistant row); `tool`: a call without a result (tool row). */
  readonly scope: 'turn' | 'tool';
  /** Written as text by an earlier version or by the reference (recognised by its exact wording). */
  readonly legacy: boolean;
}

/** The field a stored row carries its failure in. */
export const FAILURE_FIELD = '_failure';

/** Longest `detail` stored. */
export const FAILURE_DETAIL_MAX_CHARS = 500;

/** What the model reads after a user turn whose run was interrupted before any reply. */
export const TURN_INTERRUPTED_NOTE = '[nanobot note: the turn above was interrupted before a reply was generated; no reply was given.]';
/** What the model reads after a user turn whose model request failed. */
export const MODEL_ERROR_NOTE = '[nanobot note: the model request for the turn above failed, so no reply was generated.]';
/** What the model reads as the result of a call the run did not let finish. */
export const TOOL_INTERRUPTED_NOTE =
  '[nanobot note: the run was interrupted before this tool call finished; no result was recorded and its effects, if any, are unknown.]';

/**
 * The texts earlier versions (and the reference) stored as speech: the interrupted turn's
 * assistant reply, the interrupted call's result, the model-error placeholders (ours, then the
 * reference's). Recognised on read; never written.
 */
export const LEGACY_FAILURE_TEXTS = Object.freeze({
  turnInterrupted: 'Error: Task interrupted before a response was generated.',
  toolInterrupted: 'Error: Task interrupted before this tool finished.',
  modelError: Object.freeze(['[Previous assistant message omitted.]', '[Assistant reply unavailable due to model error.]']),
});

const NOTES: ReadonlySet<string> = new Set([TURN_INTERRUPTED_NOTE, MODEL_ERROR_NOTE]);

function hasCalls(message: Message): boolean {
  const calls = message.tool_calls as unknown;
  return Array.isArray(calls) ? calls.length > 0 : calls !== undefined && calls !== null;
}

function isBlank(content: unknown): boolean {
  return content === undefined || content === null || (typeof content === 'string' && content.trim() === '') || (Array.isArray(content) && content.length === 0);
}

function markerOf(value: unknown): MessageFailure | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const kind = (value as { kind?: unknown }).kind;
  if (kind !== 'interrupted' && kind !== 'model_error') return null;
  const detail = (value as { detail?: unknown }).detail;
  return typeof detail === 'string' ? { kind, detail } : { kind };
}

/**
 * The failure a stored row stands for, or null for an ordinary row: a `_failure` field on an
 * assistant row without tool calls or text (`scope: 'turn'`) or on a tool row (`scope: 'tool'`), or one of
 * the {@link LEGACY_FAILURE_TEXTS} stored the old way (`legacy: true`). Pure; never throws.
 */
export function failureOf(message: Message): StoredFailure | null {
  if (message === null || typeof message !== 'object') return null;
  const role = message.role;
  if (role !== 'assistant' && role !== 'tool') return null;
  const marker = markerOf(message[FAILURE_FIELD]);
  if (role === 'assistant') {
    if (hasCalls(message)) return null;
    const content = message.content;
    // A marked row stands for a missing reply only while it holds no text: text is the model's.
    if (marker) return isBlank(content) ? { ...marker, scope: 'turn', legacy: false } : null;
    if (typeof content !== 'string') return null;
    const text = content.trim();
    if (text === LEGACY_FAILURE_TEXTS.turnInterrupted) return { kind: 'interrupted', scope: 'turn', legacy: true };
    if (LEGACY_FAILURE_TEXTS.modelError.includes(text)) return { kind: 'model_error', scope: 'turn', legacy: true };
    return null;
  }
  if (marker) return { ...marker, scope: 'tool', legacy: false };
  const content = message.content;
  if (typeof content === 'string' && content.trim() === LEGACY_FAILURE_TEXTS.toolInterrupted) return { kind: 'interrupted', scope: 'tool', legacy: true };
  return null;
}

/**
 * The row that closes a turn without a reply: an assistant row with empty content (which
 * nanobot's Python reader skips on replay and counts as a closed turn) and a `_failure` field.
 */
export function turnFailureRow(kind: MessageFailureKind, detail?: string | null): Message {
  const failure: MessageFailure = typeof detail === 'string' && detail.trim() !== '' ? { kind, detail: detail.slice(0, FAILURE_DETAIL_MAX_CHARS) } : { kind };
  return { role: 'assistant', content: '', [FAILURE_FIELD]: failure };
}

/**
 * The result row of a call the run did not let finish: the neutral note as content (what any
 * reader replays) and a `_failure` field.
 */
export function toolFailureRow(call: { id: string; name: string }): Message {
  return { role: 'tool', tool_call_id: call.id, name: call.name, content: TOOL_INTERRUPTED_NOTE, [FAILURE_FIELD]: { kind: 'interrupted' } };
}

/**
 * What the model sees for a stored failure row: a turn failure becomes a user-role note (a
 * bracketed statement from nanobot, not the assistant's voice, never "Error…"), a tool failure a
 * tool result holding {@link TOOL_INTERRUPTED_NOTE}. Null for a row that is not a failure. The
 * returned row is new and carries only wire fields.
 */
export function failureReplayRow(message: Message): Message | null {
  const failure = failureOf(message);
  if (failure === null) return null;
  if (failure.scope === 'turn') return { role: 'user', content: failure.kind === 'model_error' ? MODEL_ERROR_NOTE : TURN_INTERRUPTED_NOTE };
  const row: Message = { role: 'tool', tool_call_id: message.tool_call_id as string, content: TOOL_INTERRUPTED_NOTE };
  if (message.name !== undefined) row.name = message.name;
  return row;
}

/** True for a user-role note {@link failureReplayRow} made of a turn failure. */
export function isFailureNote(message: Message): boolean {
  return message !== null && typeof message === 'object' && message.role === 'user' && typeof message.content === 'string' && NOTES.has(message.content);
}

// One replay row per stored row, so repeated requests send the same objects (governor memos and
// prompt-cache prefixes stay stable). Keyed by the stored row: entries go with it.
const replayRows = new WeakMap<Message, Message>();

/**
 * What {@link replayFailures} puts in the slot of `message`: its replay row (see
 * {@link failureReplayRow}; the same object on every call for the same stored row) when it is a
 * failure row, else `message` itself. Lets a caller that keeps a replayed view of a growing
 * transcript replay only the rows appended since (`replayFailures` of the whole list gives the
 * same slots). Never mutates `message`; never throws.
 */
export function replayedRow(message: Message): Message {
  const role = message?.role;
  if (role !== 'assistant' && role !== 'tool') return message;
  let row = replayRows.get(message);
  if (row === undefined) {
    const replay = failureReplayRow(message);
    if (replay === null) return message;
    row = replay;
    replayRows.set(message, row);
  }
  return row;
}

/**
 * `messages` with every failure row replaced by what the model sees (see
 * {@link failureReplayRow}, {@link replayedRow}); the same array when there is none. One row
 * in, one row out, so indexes (the in-flight start, cut plans) keep their meaning. Never mutates
 * its input.
 */
export function replayFailures(messages: readonly Message[]): readonly Message[] {
  let out: Message[] | null = null;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    const row = replayedRow(message);
    if (row === message) continue;
    out ??= messages.slice();
    out[i] = row;
  }
  return out ?? messages;
}
