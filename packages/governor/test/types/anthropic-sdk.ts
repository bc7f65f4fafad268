// Type test: a copy governed for `target: 'anthropic'` projected onto the real
// @anthropic-ai/sdk request types (the thin projection the target is legal for). Compiled by
// `pnpm typecheck` and readme-examples.test.ts; never run.
import type Anthropic from '@anthropic-ai/sdk';
import { govern, type Message } from '@nanobot/governor';

export function request(stored: readonly Message[]): Anthropic.MessageCreateParamsNonStreaming {
  const { messages } = govern(stored, { target: 'anthropic', contextWindowTokens: 200_000, maxOutputTokens: 8_192 });
  const system: Anthropic.TextBlockParam[] = [];
  const turns: Anthropic.MessageParam[] = [];
  for (const m of messages) {
    const text = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'system') system.push({ type: 'text', text });
    else if (m.role === 'assistant') turns.push({ role: 'assistant', content: text });
    else turns.push({ role: 'user', content: text });
  }
  return { model: 'claude-sonnet-4-5', max_tokens: 8_192, system, messages: turns };
}
