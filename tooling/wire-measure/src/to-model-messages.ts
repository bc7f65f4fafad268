// A stored nanobot history (OpenAI chat shape plus the provider data nanobot keeps) as an AI SDK
// application would hold it: ModelMessages whose parts carry each provider's metadata in
// `providerOptions` (Anthropic thinking signatures, Gemini thought signatures, Responses
// encrypted reasoning, Bedrock reasoning signatures, OpenRouter reasoning_details) and
// provider-executed tool blocks as provider-executed tool calls and results.
import type { Message } from '@nanobot/schema';
import type { AssistantContent, ModelMessage, ToolContent, UserContent } from 'ai';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isRec(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('\n');
}

function input(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

type Part = Exclude<AssistantContent, string>[number];

function reasoningParts(m: Message): Part[] {
  const parts: Part[] = [];
  for (const b of (m.thinking_blocks ?? []) as Rec[]) {
    if (b.type === 'thinking') {
      const signed = typeof b.signature === 'string' && b.signature !== '';
      const provider = b.producer === 'bedrock' ? 'bedrock' : 'anthropic';
      parts.push({ type: 'reasoning', text: String(b.thinking ?? ''), ...(signed ? { providerOptions: { [provider]: { signature: String(b.signature) } } } : {}) });
    } else if (b.type === 'redacted_thinking') {
      parts.push({ type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: String(b.data ?? '') } } });
    } else if (b.type === 'reasoning') {
      const summary = Array.isArray(b.summary) ? (b.summary as Rec[]) : [];
      const openai = { itemId: String(b.id), ...(typeof b.encrypted_content === 'string' ? { reasoningEncryptedContent: b.encrypted_content } : {}) };
      if (summary.length === 0) parts.push({ type: 'reasoning', text: '', providerOptions: { openai } });
      summary.forEach((s) => parts.push({ type: 'reasoning', text: String(s.text ?? ''), providerOptions: { openai } }));
    }
  }
  const details = Array.isArray(m.reasoning_details) ? (m.reasoning_details as Rec[]) : [];
  if (details.length > 0) {
    const t = details.filter((d) => d.type === 'reasoning.text').map((d) => String(d.text ?? '')).join('');
    parts.push({ type: 'reasoning', text: t, providerOptions: { openrouter: { reasoning_details: details as never } } });
  }
  if (parts.length === 0 && typeof m.reasoning_content === 'string' && m.reasoning_content !== '') parts.push({ type: 'reasoning', text: m.reasoning_content });
  return parts;
}

function assistant(m: Message): ModelMessage {
  const parts: Part[] = reasoningParts(m);
  if (Array.isArray(m.content)) {
    for (const p of m.content as Rec[]) {
      if (p.type === 'text') parts.push({ type: 'text', text: String(p.text ?? '') });
      else if (p.type === 'server_tool_use') parts.push({ type: 'tool-call', toolCallId: String(p.id), toolName: String(p.name), input: p.input ?? {}, providerExecuted: true });
      else if (typeof p.type === 'string' && p.type.endsWith('_tool_result')) {
        // The AI SDK holds a provider-executed result in its own (camelCase) shape.
        const value = p.type === 'web_search_tool_result' && Array.isArray(p.content)
          ? (p.content as Rec[]).map((r) => ({ type: 'web_search_result', url: String(r.url ?? ''), title: typeof r.title === 'string' ? r.title : null, pageAge: typeof r.page_age === 'string' ? r.page_age : null, encryptedContent: String(r.encrypted_content ?? '') }))
          : (p.content ?? null);
        parts.push({ type: 'tool-result', toolCallId: String(p.tool_use_id), toolName: p.type.replace(/_tool_result$/, ''), output: { type: 'json', value: value as never } } as Part);
      }
    }
  } else if (typeof m.content === 'string' && m.content !== '') parts.push({ type: 'text', text: m.content });
  for (const c of m.tool_calls ?? []) {
    const sig = isRec(c.extra_content) && isRec(c.extra_content.google) ? c.extra_content.google.thought_signature : undefined;
    parts.push({ type: 'tool-call', toolCallId: String(c?.id ?? ''), toolName: String(c?.function?.name ?? ''), input: input(c?.function?.arguments), ...(typeof sig === 'string' ? { providerOptions: { google: { thoughtSignature: sig } } } : {}) });
  }
  if (parts.length === 0) parts.push({ type: 'text', text: typeof m.content === 'string' ? m.content : '' });
  return parts.length === 1 && parts[0]!.type === 'text' && !parts[0]!.providerOptions ? { role: 'assistant', content: parts[0]!.text } : { role: 'assistant', content: parts };
}

/** A stored history as ModelMessages (consecutive tool results in one tool message). */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer') out.push({ role: 'system', content: text(m.content) });
    else if (m.role === 'user') {
      if (Array.isArray(m.content)) {
        const parts: Exclude<UserContent, string> = (m.content as Rec[]).map((p) =>
          p.type === 'image_url' && isRec(p.image_url) && typeof p.image_url.url === 'string' ? { type: 'image' as const, image: new URL(p.image_url.url) } : { type: 'text' as const, text: text([p]) },
        );
        out.push({ role: 'user', content: parts });
      } else out.push({ role: 'user', content: text(m.content) });
    } else if (m.role === 'assistant') out.push(assistant(m));
    else if (m.role === 'tool') {
      const part: ToolContent[number] = { type: 'tool-result', toolCallId: String(m.tool_call_id ?? ''), toolName: String(m.name ?? ''), output: { type: 'text', value: text(m.content) } };
      const last = out[out.length - 1];
      if (last?.role === 'tool') out[out.length - 1] = { ...last, content: [...last.content, part] };
      else out.push({ role: 'tool', content: [part] });
    }
  }
  return out;
}
