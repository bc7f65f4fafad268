// What a careless client sends to Anthropic: each message mapped as it stands, no repair.
// Results of one assistant turn are grouped into one user message (as pi does); nothing checks
// that a tool_use is answered in the next message.
import type { Message } from '@nanobot/schema';
import type { WireBlock, WireTurn } from './anthropic-wire-rules.js';

function userBlocks(content: Message['content']): WireBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((p) => (p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image', source: { type: 'url', url: (p as { image_url?: { url?: string } }).image_url?.url } }));
}

/** The naive Messages API conversation for `messages` (system messages left out). */
export function carelessAnthropicRequest(messages: readonly Message[]): WireTurn[] {
  const out: (WireTurn & { content: WireBlock[]; results?: boolean })[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'tool') {
      const block: WireBlock = { type: 'tool_result', tool_use_id: m.tool_call_id, content: typeof m.content === 'string' ? m.content : userBlocks(m.content) };
      const last = out.at(-1);
      if (last?.results) last.content.push(block);
      else out.push({ role: 'user', content: [block], results: true });
      continue;
    }
    if (m.role === 'assistant') {
      const content: WireBlock[] = typeof m.content === 'string' && m.content !== '' ? [{ type: 'text', text: m.content }] : [];
      for (const c of m.tool_calls ?? []) content.push({ type: 'tool_use', id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments || '{}') });
      out.push({ role: 'assistant', content });
      continue;
    }
    out.push({ role: 'user', content: userBlocks(m.content) });
  }
  return out.map(({ role, content }) => ({ role, content }));
}
