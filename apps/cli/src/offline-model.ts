import type { LLMRequest, Message } from '@nanobot/schema';
import type { ScriptedReply } from '@nanobot/providers/testing';
import { plural } from './plural.js';

/** The note the demo writes, relative to the workspace. */
export const DEMO_NOTE_PATH = 'notes/nanobot-demo.md';

/**
 * What the offline model answers in a chat: words only. It never turns chat text into a tool
 * call, because a question such as "what does `rm -rf build` do?" must not run the command.
 * `demoCommand` is how the user starts the demo in their shell (a hint that runs as printed).
 */
export function offlineHelpReply(demoCommand = 'nanobot run --demo'): string {
  return (
    "I'm nanobot's offline scripted model: no language model is configured, so I answer in words " +
    'and never run tools or commands from chat — nothing you write here is executed. ' +
    `To watch the real tools work, run \`${demoCommand}\` (it plays a fixed plan in its own temporary workspace). ` +
    'Set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL to talk to a real model.'
  );
}

/** {@link offlineHelpReply} for a CLI installed as `nanobot`. */
export const OFFLINE_HELP_REPLY = offlineHelpReply();

const RUNTIME_CONTEXT_MARK = '[Runtime Context';

interface ToolStep {
  name: string;
  arguments: Record<string, unknown>;
  content: string;
}

function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part && typeof part === 'object' && part.type === 'text' ? part.text : '')).join('\n');
}

/** The user's words of the current turn, without the runtime-context block appended to them. */
function currentRequestText(messages: readonly Message[]): { text: string; index: number } {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    const text = textOf(m.content);
    const cut = text.indexOf(RUNTIME_CONTEXT_MARK);
    return { text: (cut >= 0 ? text.slice(0, cut) : text).trim(), index: i };
  }
  return { text: '', index: -1 };
}

/** Tool calls of the current turn with their (real) results, in order. */
function stepsSince(messages: readonly Message[], from: number): ToolStep[] {
  const results = new Map<string, string>();
  for (let i = from + 1; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'tool' && typeof m.tool_call_id === 'string') results.set(m.tool_call_id, textOf(m.content));
  }
  const steps: ToolStep[] = [];
  for (let i = from + 1; i < messages.length; i++) {
    const m = messages[i];
    if (m.role !== 'assistant' || !Array.isArray(m.tool_calls)) continue;
    for (const call of m.tool_calls) {
      let args: Record<string, unknown>;
      try {
        const raw = call.function?.arguments;
        args = typeof raw === 'string' ? (JSON.parse(raw) as Record<string, unknown>) : ((raw as Record<string, unknown>) ?? {});
      } catch {
        args = {};
      }
      steps.push({ name: call.function?.name ?? '', arguments: args, content: results.get(call.id) ?? '' });
    }
  }
  return steps;
}

function isError(content: string): boolean {
  return /^Error\b/.test(content);
}

function listingEntries(listing: string): string[] {
  return listing.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('(') && !l.startsWith('Error'));
}

function pickFile(entries: readonly string[]): string | null {
  const files = entries.filter((e) => !e.endsWith('/') && !e.endsWith('@') && !e.startsWith('.'));
  return files.find((f) => /^readme(\.md)?$/i.test(f)) ?? files.find((f) => f.endsWith('.md')) ?? files[0] ?? null;
}

function readFileFacts(content: string): { lines: number | null; first: string | null } {
  const total = /\((?:End of file — )?(\d+) lines total\)/.exec(content);
  const first = /^1\|(.*)$/m.exec(content);
  return { lines: total ? Number(total[1]) : null, first: first ? first[1].trim() : null };
}

/** The demo: list → read → write a note → run a command → report, each step on real results. */
function demoStep(steps: readonly ToolStep[]): ScriptedReply {
  const done = (name: string) => steps.find((s) => s.name === name);
  const listed = done('list_dir');
  if (!listed) {
    return { content: "Offline demo: I'll look around the workspace with the real tools.", toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] };
  }
  const entries = listingEntries(listed.content);
  const file = pickFile(entries);
  const read = done('read_file');
  const wrote = done('write_file');
  if (!wrote && file && !read) {
    return { content: `I see ${plural(entries.length, 'entry', 'entries')}. Let me read ${file}.`, toolCalls: [{ name: 'read_file', arguments: { path: file } }] };
  }
  const facts = read && !isError(read.content) ? readFileFacts(read.content) : null;
  if (!wrote) {
    const body = [
      '# nanobot demo notes',
      '',
      `- The workspace has ${plural(entries.length, 'entry', 'entries')}: ${entries.slice(0, 12).join(', ')}${entries.length > 12 ? ', …' : ''}.`,
      read
        ? isError(read.content)
          ? `- Reading ${file} failed: ${read.content.split('\n')[0]}`
          : `- ${file} has ${facts?.lines != null ? plural(facts.lines, 'line') : '? lines'}; it starts with: ${facts?.first ?? '(empty)'}`
        : '- There was no file to read.',
      '',
    ].join('\n');
    return { content: `Writing what I found to ${DEMO_NOTE_PATH}.`, toolCalls: [{ name: 'write_file', arguments: { path: DEMO_NOTE_PATH, content: body } }] };
  }
  const ran = done('exec');
  if (!ran) {
    const targets = [...(file && read && !isError(read.content) ? [file] : []), DEMO_NOTE_PATH].map((p) => `'${p.replace(/'/g, `'\\''`)}'`);
    return { content: 'Now a shell command, to double-check the files.', toolCalls: [{ name: 'exec', arguments: { command: `wc -l ${targets.join(' ')}` } }] };
  }
  const counted = ran.content.split('\n').map((l) => l.trim()).filter((l) => /^\d+\s/.test(l));
  const lines = [
    'Offline demo finished — every result above came from the real tools:',
    `• list_dir found ${plural(entries.length, 'entry', 'entries')}: ${entries.slice(0, 8).join(', ')}${entries.length > 8 ? ', …' : ''}`,
    read
      ? isError(read.content)
        ? `• read_file ${file} failed: ${read.content.split('\n')[0]}`
        : `• read_file ${file}: ${facts?.lines != null ? plural(facts.lines, 'line') : '? lines'}, starting "${facts?.first ?? ''}"`
      : '• there was no file to read',
    isError(wrote.content) ? `• write_file failed: ${wrote.content.split('\n')[0]}` : `• write_file: ${wrote.content.split('\n')[0]}`,
    isError(ran.content) ? `• exec failed: ${ran.content.split('\n')[0]}` : `• exec wc -l: ${counted.join('; ') || ran.content.split('\n')[0]}`,
    '',
    'Set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL to run the same tools with a real model.',
  ];
  return { content: lines.join('\n') };
}

/**
 * The offline model: a function of the request (for `ScriptedProvider`). Only with `demo` (set
 * by `nanobot run --demo`, which runs in a throw-away workspace) does it call tools, playing the
 * demo plan on the real results already in the transcript; otherwise it answers in words and
 * never calls a tool, whatever the message says.
 */
export function offlineModelStep(request: LLMRequest, options: { demo?: boolean; demoCommand?: string } = {}): ScriptedReply {
  if (!options.demo) return { content: offlineHelpReply(options.demoCommand) };
  const { index } = currentRequestText(request.messages);
  return demoStep(stepsSince(request.messages, index));
}
