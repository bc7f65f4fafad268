import type { Message } from '@nanobot/schema';

/** Keys the OpenAI-compatible chat API accepts on a message (everything else is internal). */
export const OPENAI_MESSAGE_KEYS: readonly string[] = ['role', 'content', 'tool_calls', 'tool_call_id', 'name', 'reasoning_content', 'extra_content'];

/**
 * Keeps only `allowedKeys` of each message, on a copy (session extras such as `timestamp` or
 * `_meta` never reach the wire), in the order of `allowedKeys`: a message replayed from a
 * session file (`{role, content, tool_call_id, …}`) serialises to the same bytes as when the
 * runner first sent it (`{role, tool_call_id, name, content}`), so the provider's prefix cache
 * still matches it on the next turn. An assistant left without `content` gets `content: null`,
 * which strict gateways require.
 */
export function sanitizeRequestMessages(messages: readonly Message[], allowedKeys: readonly string[] = OPENAI_MESSAGE_KEYS): Message[] {
  const allowed = new Set(allowedKeys);
  return messages.map((message) => {
    const out: Record<string, unknown> = {};
    const assistant = message.role === 'assistant';
    for (const key of allowed) {
      if (Object.prototype.hasOwnProperty.call(message, key)) out[key] = (message as Record<string, unknown>)[key];
      else if (key === 'content' && assistant) out.content = null;
    }
    if (assistant && !('content' in out)) out.content = null;
    return out as Message;
  });
}
