// How the governor's report names a message (shared by govern and its per-history memos).
import type { Message } from '@nanobot/schema';
import type { ReportedMessage } from './govern-report.js';
import { resultId } from '../internal/tool-calls.js';

function preview(content: unknown): string | undefined {
  return typeof content === 'string' ? content.slice(0, 80) : undefined;
}

/** The report's reference to `msg` at `index`: role, call id, name and a short preview. */
export function ref(msg: Message, index: number): ReportedMessage {
  const out: ReportedMessage = { index, role: String(msg.role) };
  const id = resultId(msg);
  if (msg.role === 'tool' && id !== null) out.toolCallId = id;
  if (typeof msg.name === 'string' && msg.name) out.name = msg.name;
  const p = preview(msg.content);
  if (p !== undefined) out.preview = p;
  return out;
}
