// How the governor's report names a message (shared by govern and its per-history memos).
import type { Message } from '@nanobot/schema';
import type { ReportedChangeReason, ReportedMessage } from './govern-report.js';
import { resultId } from '../internal/tool-calls.js';

function preview(content: unknown): string | undefined {
  return typeof content === 'string' ? content.slice(0, 80) : undefined;
}

/**
 * The report's reference to `msg` at `index`: role, call id, name and a short preview, then the
 * step's `reason` when given. One object built field by field: spreading a reference into a
 * literal with its reason (the references take several shapes) went through the engine's
 * generic object copy, ~1 µs an entry on memos that list entries every call.
 */
export function ref(msg: Message, index: number, reason?: ReportedChangeReason): ReportedMessage {
  const out: ReportedMessage = { index, role: String(msg.role) };
  const id = resultId(msg);
  if (msg.role === 'tool' && id !== null) out.toolCallId = id;
  if (typeof msg.name === 'string' && msg.name) out.name = msg.name;
  const p = preview(msg.content);
  if (p !== undefined) out.preview = p;
  if (reason !== undefined) out.reason = reason;
  return out;
}

/** {@link ref}, frozen: a memo's entries are shared by every report that lists them. */
export function frozenRef(msg: Message, index: number, reason: ReportedChangeReason): ReportedMessage {
  return Object.freeze(ref(msg, index, reason));
}

/** The name of each id's result in `messages` (`'tool'` when it has none), for the report. */
export function toolNames(messages: readonly Message[], ids: readonly string[]): (id: string) => string {
  const names = new Map<string, string>();
  if (ids.length > 0) {
    const wanted = new Set(ids);
    for (const m of messages) {
      const id = m.role === 'tool' ? resultId(m) : null;
      if (id !== null && wanted.has(id) && !names.has(id)) names.set(id, typeof m.name === 'string' ? m.name : 'tool');
    }
  }
  return (id) => names.get(id) ?? 'tool';
}
