// Recorded sessions (our model: OpenAI chat shape) as a native Anthropic or Responses client
// would have stored them, damage included (empty and whitespace-only assistant text, reused
// ids, unanswered calls), so the dialect suites govern the same 16 sessions in each dialect.
// Reasoning becomes a signed thinking block or an encrypted reasoning item, error results get
// `is_error`, images become native image blocks / parts.
import type { Message } from '@nanobot/schema';
import type { AnthropicBlockLike, AnthropicMessageLike } from '../dialects/anthropic/anthropic-types.js';
import type { ResponsesItemLike } from '../dialects/responses/responses-types.js';

type Block = AnthropicBlockLike & Record<string, unknown>;

function parseArgs(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    const v: unknown = JSON.parse(args);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : { value: v };
  } catch {
    return { raw: args };
  }
}

function imageBlock(url: string): Block {
  const m = /^data:([^;]+);base64,(.*)$/s.exec(url);
  return m ? { type: 'image', source: { type: 'base64', media_type: m[1], data: m[2] } } : { type: 'image', source: { type: 'url', url } };
}

function anthropicBlocks(content: unknown): Block[] {
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  return content.map((p: Record<string, unknown>) => {
    if (p.type === 'image_url') return imageBlock(String((p.image_url as { url?: unknown } | undefined)?.url ?? ''));
    if (p.type === 'text') return { type: 'text', text: String(p.text ?? '') };
    return p as Block;
  });
}

const looksLikeError = (content: unknown): boolean => typeof content === 'string' && /^(error|traceback)/i.test(content.trimStart());

/** A recorded session as an Anthropic client stores it: `{ system, messages }`. */
export function toAnthropicHistory(history: readonly Message[]): { system?: string; messages: AnthropicMessageLike[] } {
  const out: { role: 'user' | 'assistant' | 'system'; content: string | Block[] }[] = [];
  const system: string[] = [];
  let started = false;
  let resultsTurn: Block[] | null = null;
  history.forEach((m, i) => {
    if (m.role === 'system' && !started) {
      system.push(typeof m.content === 'string' ? m.content : anthropicBlocks(m.content).map((b) => String(b.text ?? '')).join('\n'));
      return;
    }
    started = true;
    if (m.role === 'tool') {
      const block: Block = { type: 'tool_result', tool_use_id: String(m.tool_call_id), content: typeof m.content === 'string' ? m.content : anthropicBlocks(m.content) };
      if (looksLikeError(m.content)) block.is_error = true;
      if (resultsTurn === null) {
        resultsTurn = [];
        out.push({ role: 'user', content: resultsTurn });
      }
      resultsTurn.push(block);
      return;
    }
    if (m.role === 'user' && resultsTurn !== null) {
      resultsTurn.push(...anthropicBlocks(m.content));
      resultsTurn = null;
      return;
    }
    resultsTurn = null;
    if (m.role === 'assistant') {
      const blocks: Block[] = [];
      if (typeof m.reasoning_content === 'string' && m.reasoning_content.length > 0) blocks.push({ type: 'thinking', thinking: m.reasoning_content, signature: `sig-${i}-${m.reasoning_content.length}` });
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      if (calls.length === 0 && blocks.length === 0 && (typeof m.content === 'string' || m.content === null || m.content === undefined)) {
        out.push({ role: 'assistant', content: m.content ?? '' });
        return;
      }
      blocks.push(...anthropicBlocks(m.content));
      for (const c of calls) blocks.push({ type: 'tool_use', id: String(c.id), name: String(c.function?.name ?? ''), input: parseArgs(c.function?.arguments) });
      out.push({ role: 'assistant', content: blocks });
      return;
    }
    const content = typeof m.content === 'string' ? m.content : anthropicBlocks(m.content);
    out.push({ role: m.role === 'system' ? 'system' : 'user', content });
  });
  return system.length > 0 ? { system: system.join('\n\n'), messages: out } : { messages: out };
}

function responsesParts(content: unknown, role: 'user' | 'assistant'): unknown {
  if (!Array.isArray(content)) return content ?? '';
  return content.map((p: Record<string, unknown>) => {
    if (p.type === 'image_url') return { type: 'input_image', detail: 'auto', image_url: String((p.image_url as { url?: unknown } | undefined)?.url ?? '') };
    if (p.type === 'text') return role === 'assistant' ? { type: 'output_text', text: String(p.text ?? ''), annotations: [] } : { type: 'input_text', text: String(p.text ?? '') };
    return p;
  });
}

/** A recorded session as a Responses client stores it: a list of input items. */
export function toResponsesInput(history: readonly Message[]): ResponsesItemLike[] {
  const out: Record<string, unknown>[] = [];
  history.forEach((m, i) => {
    if (m.role === 'system') out.push({ role: 'developer', content: typeof m.content === 'string' ? m.content : responsesParts(m.content, 'user') });
    else if (m.role === 'user') out.push({ role: 'user', content: typeof m.content === 'string' ? m.content : responsesParts(m.content, 'user') });
    else if (m.role === 'tool') out.push({ type: 'function_call_output', call_id: String(m.tool_call_id), output: typeof m.content === 'string' ? m.content : responsesParts(m.content, 'user') });
    else if (m.role === 'assistant') {
      if (typeof m.reasoning_content === 'string' && m.reasoning_content.length > 0) {
        out.push({ type: 'reasoning', id: `rs_${i}`, summary: [{ type: 'summary_text', text: m.reasoning_content }], encrypted_content: `enc-${i}-${m.reasoning_content.length}` });
      }
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      const text = m.content;
      if (typeof text === 'string' && text.length > 0) {
        out.push({ type: 'message', role: 'assistant', id: `msg_${i}`, status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
      } else if (Array.isArray(text)) {
        out.push({ type: 'message', role: 'assistant', id: `msg_${i}`, status: 'completed', content: responsesParts(text, 'assistant') });
      } else if (calls.length === 0) {
        out.push({ role: 'assistant', content: '' }); // an aborted turn, as stored
      }
      calls.forEach((c, k) => out.push({ type: 'function_call', id: `fc_${i}_${k}`, call_id: String(c.id), name: String(c.function?.name ?? ''), arguments: String(c.function?.arguments ?? '') }));
    }
  });
  return out as ResponsesItemLike[];
}
