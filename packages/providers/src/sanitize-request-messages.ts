import type { Message } from '@nanobot/schema';

/** Keys the OpenAI-compatible chat API accepts on a message (everything else is internal). */
export const OPENAI_MESSAGE_KEYS: readonly string[] = ['role', 'content', 'tool_calls', 'tool_call_id', 'name', 'reasoning_content', 'extra_content'];

/**
 * Keeps only `allowedKeys` of each message, on a copy (session extras such as `timestamp` or
 * `_meta` never reach the wire). An assistant left without `content` gets `content: null`,
 * which strict gateways require.
 */
export function sanitizeRequestMessages(messages: readonly Message[], allowedKeys: readonly string[] = OPENAI_MESSAGE_KEYS): Message[] {
  const allowed = new Set(allowedKeys);
  return messages.map((message) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(message)) if (allowed.has(key)) out[key] = value;
    if (out.role === 'assistant' && !('content' in out)) out.content = null;
    return out as Message;
  });
}
