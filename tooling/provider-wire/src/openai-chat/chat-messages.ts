// Reading an OpenAI chat-completions body: messages, tool calls, the current turn.
import type { Json } from '../core/wire-rule.js';
import { isRec, records } from '../core/wire-rule.js';

/** The body's `messages` (non-objects dropped). */
export const chatMessages = (body: Json): Json[] => records(body.messages);

/** The tool calls of a message. */
export const toolCallsOf = (m: Json): Json[] => records(m.tool_calls);

/** Index of the last `user` message (-1 when none): what follows it is the current turn's tool loop. */
export function lastUserIndex(messages: readonly Json[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return i;
  return -1;
}

/** The model id of the body (empty when absent). */
export const modelOf = (body: Json): string => (typeof body.model === 'string' ? body.model : '');

/** `tool_calls[j].extra_content.google.thought_signature`, if any. */
export function toolCallThoughtSignature(call: Json): unknown {
  const extra = call.extra_content;
  return isRec(extra) && isRec(extra.google) ? extra.google.thought_signature : undefined;
}
