// The 16 recorded sessions of fixtures/transcripts (OpenAI-shaped, with their real damage) as a
// LangChain application would have stored them: BaseMessages (tool calls with parsed args,
// reasoning in additional_kwargs as ChatOpenAI keeps it). The damage stays: empty and
// whitespace-only turns, calls without results or a name, reused ids, mid-history system messages.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { Message } from '@nanobot/schema';

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

function content(c: unknown): string | Record<string, unknown>[] {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c as Record<string, unknown>[];
  return '';
}

function args(a: unknown): Record<string, unknown> {
  if (typeof a !== 'string') return {};
  try {
    const v = JSON.parse(a) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { raw: a };
  }
}

/** The transcript as BaseMessages, one for one. */
export function toBaseMessages(messages: readonly Message[]): BaseMessage[] {
  return messages.map((m) => {
    const c = content(m.content);
    if (m.role === 'system' || m.role === 'developer') return new SystemMessage({ content: c as string });
    if (m.role === 'user') return new HumanMessage({ content: c as string });
    if (m.role === 'tool') return new ToolMessage({ content: c as string, tool_call_id: String(m.tool_call_id ?? ''), ...(typeof m.name === 'string' ? { name: m.name } : {}) });
    const calls = (Array.isArray(m.tool_calls) ? m.tool_calls : []).map((tc) => ({ id: String(tc?.id ?? ''), name: String(tc?.function?.name ?? ''), args: args(tc?.function?.arguments), type: 'tool_call' as const }));
    const kwargs = typeof m.reasoning_content === 'string' && m.reasoning_content ? { reasoning_content: m.reasoning_content } : {};
    return new AIMessage({ content: c as string, tool_calls: calls, additional_kwargs: kwargs });
  });
}
