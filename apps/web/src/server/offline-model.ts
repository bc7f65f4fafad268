import { RUNTIME_CONTEXT_HEADER } from '@nanobot/context-builder';
import { ScriptedProvider } from '@nanobot/providers/testing';
import type { ScriptedReply, ScriptedToolCall } from '@nanobot/providers/testing';
import type { LLMRequest, Message } from '@nanobot/schema';

/** Options of {@link createOfflineModel}. */
export interface OfflineModelOptions {
  /** Pause between streamed words, so replies visibly stream (default 12 ms; 0 in tests is fine). */
  deltaDelayMs?: number;
}

/** The name the offline model reports (shown in the page header). */
export const OFFLINE_MODEL_NAME = 'offline-demo';

type Plan = ((results: readonly ToolOutcome[]) => ScriptedToolCall[] | null)[];

interface ToolOutcome {
  name: string;
  args: Record<string, unknown>;
  content: string;
}

function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('\n');
}

/** The user's words without the runtime-context block the context builder appends. */
function userWords(message: Message | undefined): string {
  const text = textOf(message?.content ?? null);
  const cut = text.indexOf(RUNTIME_CONTEXT_HEADER);
  return (cut >= 0 ? text.slice(0, cut) : text).trim();
}

function parseArgs(raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'string') return {};
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** This turn's tool calls and their results, in order. */
function outcomes(turn: readonly Message[]): ToolOutcome[] {
  const results = new Map<string, string>();
  for (const m of turn) if (m.role === 'tool' && typeof m.tool_call_id === 'string') results.set(m.tool_call_id, textOf(m.content));
  const out: ToolOutcome[] = [];
  for (const m of turn) {
    for (const call of m.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls : []) {
      out.push({ name: call.function.name, args: parseArgs(call.function.arguments), content: results.get(call.id) ?? '' });
    }
  }
  return out;
}

// A file worth opening from a list_dir listing: a README or notes first, else the first text file.
function pickFile(listing: string): string | null {
  const names = listing
    .split('\n')
    .map((l) => l.replace(/^[^\w.]*\s*/u, '').trim())
    .filter((n) => /\.(md|txt|json|ts|js|py|toml|ya?ml)$/i.test(n));
  return names.find((n) => /readme/i.test(n)) ?? names.find((n) => /notes/i.test(n)) ?? names[0] ?? null;
}

function planFor(words: string): Plan {
  const file = /(?:read|open|show|cat)\s+[`"']?([\w./-]+\.\w+)/i.exec(words)?.[1];
  if (file) return [() => [{ name: 'read_file', arguments: { path: file } }]];
  if (/\blogs?\b/i.test(words)) {
    // A deliberately large result: the governor offloads it and the inspector links the file.
    return [() => [{ name: 'grep', arguments: { pattern: 'INFO|WARN|ERROR', path: 'logs', output_mode: 'content', head_limit: 1000 } }]];
  }
  const search = /(?:search|grep|find)\s+(?:for\s+)?[`"']?([\w-]+)/i.exec(words)?.[1];
  if (search) return [() => [{ name: 'grep', arguments: { pattern: search, path: '.', output_mode: 'content', case_insensitive: true } }]];
  return [
    () => [{ name: 'list_dir', arguments: { path: '.' } }],
    (results) => {
      const listing = results.find((r) => r.name === 'list_dir')?.content ?? '';
      const pick = pickFile(listing);
      return pick ? [{ name: 'read_file', arguments: { path: pick } }] : null;
    },
  ];
}

function firstLines(text: string, lines: number): string {
  return text.split('\n').filter((l) => l.trim() !== '').slice(0, lines).join('\n');
}

const LOG_LEVEL = /\b(ERROR|WARN|INFO)\b/;

/** The log lines of a grep result as the model received it (the governor's bracketed notes left out). */
function logLines(text: string): string[] {
  return text.split('\n').filter((l) => !l.startsWith('[') && LOG_LEVEL.test(l));
}

/**
 * An answer from the log lines the model was shown: how many of each level, the first errors
 * quoted, and — when the governor shortened the output — that only part of it was shown.
 */
function logSummary(what: string, content: string): string {
  const lines = logLines(content);
  const count = (level: string) => lines.filter((l) => LOG_LEVEL.exec(l)?.[1] === level).length;
  const errors = lines.filter((l) => LOG_LEVEL.exec(l)?.[1] === 'ERROR');
  const shortened = /^\[output shortened to fit the context: ([\d,]+) of ([\d,]+) characters shown/.exec(content);
  const scope = shortened ? ` in the ${shortened[1]} of ${shortened[2]} characters I was shown (the full output is saved; I can read the rest)` : '';
  const head = `${what} found ${lines.length} log lines${scope}: ${count('ERROR')} ERROR, ${count('WARN')} WARN, ${count('INFO')} INFO.`;
  return errors.length > 0 ? `${head} The first errors:\n\n> ${errors.slice(0, 3).join('\n> ')}` : `${head} No errors among them.`;
}

function answer(words: string, results: readonly ToolOutcome[]): string {
  if (results.length === 0) return `You said: “${words}”. (This is the offline demo model; set OPENAI_API_KEY or ANTHROPIC_API_KEY for a real one.)`;
  const parts: string[] = [];
  for (const r of results) {
    const what = `\`${r.name}(${Object.entries(r.args).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')})\``;
    if (r.content.startsWith('Error')) parts.push(`${what} failed: ${firstLines(r.content, 1)}`);
    else if (r.name === 'list_dir') parts.push(`${what} shows ${r.content.split('\n').filter((l) => l.trim()).length} entries in the workspace.`);
    else if (r.name === 'grep' && logLines(r.content).length > 0) parts.push(logSummary(what, r.content));
    else parts.push(`${what} returned ${r.content.length.toLocaleString('en-US')} characters, starting with:\n\n> ${firstLines(r.content, 3).replace(/\n/g, '\n> ')}`);
  }
  return `Here is what I found.\n\n${parts.join('\n\n')}\n\nThe inspector (beside the chat, or behind its tab in a narrow window) shows exactly what was sent to the model on each step.`;
}

/**
 * The offline scripted model the demo runs when no API key is configured: a `ScriptedProvider`
 * whose script reads the request, runs one or two real tools (list the workspace and open a
 * file; grep the logs; read a named file) and then answers from their results, streamed word by
 * word. Deterministic for a given request, so the browser tests can rely on it.
 */
export function createOfflineModel(options: OfflineModelOptions = {}): ScriptedProvider {
  return new ScriptedProvider(
    (request: LLMRequest): ScriptedReply => {
      const messages = request.messages;
      let start = -1;
      for (let i = messages.length - 1; i >= 0; i--) {
        if (messages[i].role === 'user') {
          start = i;
          break;
        }
      }
      const words = userWords(messages[start]);
      const turn = messages.slice(start + 1);
      const done = outcomes(turn);
      const rounds = turn.filter((m) => m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0).length;
      const plan = planFor(words);
      if ((request.tools?.length ?? 0) > 0 && rounds < plan.length) {
        const calls = plan[rounds](done);
        if (calls && calls.length > 0) return { content: rounds === 0 ? 'Let me check the workspace.' : null, toolCalls: calls };
      }
      return { content: answer(words, done) };
    },
    { name: 'offline', model: OFFLINE_MODEL_NAME, deltaDelayMs: options.deltaDelayMs ?? 12 },
  );
}
