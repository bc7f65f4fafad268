import type { Message } from '@nanobot/schema';

export { deepFreeze } from '@nanobot-internal/test-support';

export const user = (content: string, extra: Record<string, unknown> = {}): Message => ({ role: 'user', content, ...extra });
export const assistant = (content: string | null, extra: Record<string, unknown> = {}): Message => ({ role: 'assistant', content, ...extra });
export const call = (id: string, name = 'exec', args = '{}') => ({ id, type: 'function' as const, function: { name, arguments: args } });
export const toolResult = (id: string, content = 'ok', name = 'exec'): Message => ({ role: 'tool', tool_call_id: id, name, content });

/** A plain chat of `turns` user/assistant pairs. */
export function chat(turns: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i += 1) out.push(user(`u${i}`), assistant(`a${i}`));
  return out;
}
