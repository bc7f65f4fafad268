// A fake OpenAI-compatible model for CLI tests that need real tool runs: it maps plain requests
// to one tool call ("read x.md", "run: cmd", "list files", "write p: text") and then reports the
// tool's result. The offline model never does this (chat text must never run anything), so
// tests that drive tools through `nanobot chat` / `run -m` talk to this server instead.
import { startFakeOpenAiServer, type FakeOpenAiServer, type FakeReply } from './fake-openai-server.js';

const RUNTIME_CONTEXT_MARK = '[Runtime Context';

function toolFor(text: string): { name: string; arguments: Record<string, unknown> } | null {
  let m = /^(?:run|exec)\s*:\s*(.+)$/is.exec(text);
  if (m) return { name: 'exec', arguments: { command: m[1].trim() } };
  m = /\bwrite\s+(\S+?)\s*:\s*([\s\S]+)$/i.exec(text);
  if (m) return { name: 'write_file', arguments: { path: m[1], content: `${m[2].trim()}\n` } };
  m = /\bread\s+([\w./-]+\.\w+)/i.exec(text);
  if (m) return { name: 'read_file', arguments: { path: m[1] } };
  if (/\blist files\b/i.test(text)) return { name: 'list_dir', arguments: { path: '.' } };
  return null;
}

/** The next reply for an OpenAI chat-completions request body. */
export function toolFollowingReply(body: { messages: { role: string; content?: unknown; name?: string }[] }, n: number): FakeReply {
  const last = body.messages[body.messages.length - 1];
  if (last.role === 'tool') return { content: `${last.name ?? 'tool'} returned:\n${String(last.content)}` };
  const text = String(last.content ?? '');
  const cut = text.indexOf(RUNTIME_CONTEXT_MARK);
  const words = (cut >= 0 ? text.slice(0, cut) : text).trim();
  const tool = toolFor(words);
  if (!tool) return { content: `You said: ${words}` };
  return { content: `Calling ${tool.name}.`, toolCalls: [{ id: `call_${n}`, name: tool.name, arguments: JSON.stringify(tool.arguments) }] };
}

/** Starts the server; point the CLI at it with `OPENAI_BASE_URL=<url>`. */
export function startToolFollowingServer(): Promise<FakeOpenAiServer> {
  return startFakeOpenAiServer((body, n) => toolFollowingReply(body as Parameters<typeof toolFollowingReply>[0], n));
}
