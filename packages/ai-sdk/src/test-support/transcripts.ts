// The 16 recorded sessions of fixtures/transcripts (OpenAI-shaped, with their real damage) as
// an AI SDK application would have stored them: ModelMessages, the results of one step in one
// tool message, reasoning as reasoning parts. The damage stays: empty and whitespace-only
// turns, calls without results or without a name, reused ids, mid-history system messages.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '@nanobot/schema';
import type { AssistantContent, ModelMessage, ToolContent, UserContent } from 'ai';

/** Folder of the recorded transcripts (`$NANOBOT_FIXTURES_DIR/transcripts`). */
export function transcriptsDir(): string {
  const dir = process.env.NANOBOT_FIXTURES_DIR;
  if (!dir) throw new Error('NANOBOT_FIXTURES_DIR is not set (vitest.shared.ts sets it)');
  return join(dir, 'transcripts');
}

/** Transcript file names, sorted. */
export function transcriptFiles(): string[] {
  return readdirSync(transcriptsDir()).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();
}

/** One transcript as recorded (OpenAI chat shape). */
export function loadTranscript(file: string): Message[] {
  return JSON.parse(readFileSync(join(transcriptsDir(), file), 'utf8')) as Message[];
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('\n');
}

function input(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** The transcript as ModelMessages (one for each message; consecutive results in one tool message). */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer') out.push({ role: 'system', content: text(m.content) });
    else if (m.role === 'user') {
      if (Array.isArray(m.content)) {
        const parts: Exclude<UserContent, string> = m.content.map((p) =>
          p.type === 'image_url' && typeof (p as { image_url?: { url?: unknown } }).image_url?.url === 'string'
            ? { type: 'image' as const, image: new URL((p as { image_url: { url: string } }).image_url.url) }
            : { type: 'text' as const, text: text([p]) },
        );
        out.push({ role: 'user', content: parts });
      } else out.push({ role: 'user', content: text(m.content) });
    } else if (m.role === 'assistant') {
      const parts: Exclude<AssistantContent, string> = [];
      if (typeof m.reasoning_content === 'string' && m.reasoning_content) parts.push({ type: 'reasoning', text: m.reasoning_content });
      for (const b of m.thinking_blocks ?? []) {
        if (typeof b.thinking === 'string') parts.push({ type: 'reasoning', text: b.thinking, providerOptions: { anthropic: { signature: String(b.signature ?? '') } } });
      }
      const t = text(m.content);
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      if (t !== '' || (parts.length === 0 && calls.length === 0)) parts.push({ type: 'text', text: t });
      for (const c of calls) {
        parts.push({ type: 'tool-call', toolCallId: String(c?.id ?? ''), toolName: String(c?.function?.name ?? ''), input: input(c?.function?.arguments) });
      }
      out.push(parts.length === 1 && parts[0].type === 'text' ? { role: 'assistant', content: parts[0].text } : { role: 'assistant', content: parts });
    } else if (m.role === 'tool') {
      const part: ToolContent[number] = { type: 'tool-result', toolCallId: String(m.tool_call_id ?? ''), toolName: String(m.name ?? ''), output: { type: 'text', value: text(m.content) } };
      const last = out[out.length - 1];
      if (last?.role === 'tool') out[out.length - 1] = { ...last, content: [...last.content, part] };
      else out.push({ role: 'tool', content: [part] });
    }
  }
  return out;
}
