// An OpenAI-compatible chat-completions server on 127.0.0.1 that plays a real model for the
// browser tests: it streams answers over SSE, calls the demo's tools ("What is in the
// workspace?" lists it and reads the README), and bills input tokens the way providers do — more
// than the governor estimates (a fixed ratio plus a constant, so the usage calibration has
// something to learn) and with some of them cached — so the page shows calibrated counts, long
// numbers and a cost, as it does with a real model.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Options of {@link startOpenAiModelServer}. */
export interface OpenAiModelServerOptions {
  /** Billed input tokens per character of the request's messages and tools (default 0.37: ~1.4× o200k). */
  tokensPerChar?: number;
  /** Input tokens billed on top of every request (hidden framing; default 211). */
  extraTokens?: number;
  /** Share of the billed input reported as cached (default 0.4). */
  cachedShare?: number;
}

/** A started {@link startOpenAiModelServer}. */
export interface OpenAiModelServer {
  /** Base URL for `OPENAI_BASE_URL` (ends in `/v1`). */
  url: string;
  /** Every request body received, in order. */
  requests: Record<string, any>[];
  /** The input tokens billed for each request (`usage.prompt_tokens`), in order. */
  billed: number[];
  close(): Promise<void>;
}

const RUNTIME_CONTEXT_MARK = '[Runtime Context';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join(' ');
  return '';
}

interface Reply {
  content: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
}

/** What the scripted model answers to a request body. */
function replyTo(body: { messages: { role: string; content?: unknown; name?: string; tool_calls?: unknown[] }[] }, n: number): Reply {
  const messages = body.messages;
  const last = messages[messages.length - 1];
  let userAt = messages.length - 1;
  while (userAt >= 0 && messages[userAt].role !== 'user') userAt--;
  const asked = textOf(messages[userAt]?.content);
  const words = (asked.includes(RUNTIME_CONTEXT_MARK) ? asked.slice(0, asked.indexOf(RUNTIME_CONTEXT_MARK)) : asked).trim();
  const toolsRun = messages.slice(userAt + 1).filter((m) => m.role === 'tool').map((m) => m.name);
  if (/workspace/i.test(words)) {
    if (!toolsRun.includes('list_dir')) return { content: 'Let me look around.', toolCalls: [{ id: `call_list_${n}`, name: 'list_dir', arguments: JSON.stringify({ path: '.' }) }] };
    if (!toolsRun.includes('read_file')) return { content: 'Reading the README.', toolCalls: [{ id: `call_read_${n}`, name: 'read_file', arguments: JSON.stringify({ path: 'README.md' }) }] };
    return { content: 'Here is what I found: a README that explains the project, notes, and logs with 12,345 lines of output from the nightly build.' };
  }
  if (last.role === 'tool') return { content: `The ${last.name ?? 'tool'} result is in; nothing else to do.` };
  return { content: `Noted: "${words.slice(0, 80)}". Since then nothing has changed in the 1,048,576-token window's worth of history I can see.` };
}

function chunk(id: string, delta: Record<string, unknown>, finish: string | null): string {
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function answer(res: ServerResponse, body: Record<string, any>, reply: Reply, n: number, options: Required<OpenAiModelServerOptions>, billed: number[]): void {
  const id = `chatcmpl-${n}`;
  const size = JSON.stringify(body.messages ?? []).length + JSON.stringify(body.tools ?? []).length;
  const prompt = Math.round(size * options.tokensPerChar) + options.extraTokens;
  billed.push(prompt);
  const usage = { prompt_tokens: prompt, completion_tokens: 17 + reply.content.length, total_tokens: prompt + 17 + reply.content.length, prompt_tokens_details: { cached_tokens: Math.round(prompt * options.cachedShare) } };
  const finish = reply.toolCalls ? 'tool_calls' : 'stop';
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const message = { role: 'assistant', content: reply.content, ...(reply.toolCalls ? { tool_calls: reply.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}) };
    res.end(JSON.stringify({ id, object: 'chat.completion', created: 1, model: 'gpt-4.1', choices: [{ index: 0, finish_reason: finish, message }], usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.write(chunk(id, { role: 'assistant', content: '' }, null));
  for (const piece of reply.content.match(/\S+\s*|\s+/g) ?? []) res.write(chunk(id, { content: piece }, null));
  (reply.toolCalls ?? []).forEach((call, index) => {
    res.write(chunk(id, { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }, null));
    res.write(chunk(id, { tool_calls: [{ index, function: { arguments: call.arguments } }] }, null));
  });
  res.write(chunk(id, {}, finish));
  res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [], usage })}\n\n`);
  res.end('data: [DONE]\n\n');
}

/** Starts the server on a free port of 127.0.0.1. */
export async function startOpenAiModelServer(options: OpenAiModelServerOptions = {}): Promise<OpenAiModelServer> {
  const settings: Required<OpenAiModelServerOptions> = { tokensPerChar: 0.37, extraTokens: 211, cachedShare: 0.4, ...options };
  const requests: Record<string, any>[] = [];
  const billed: number[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (raw += d));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(raw) as Record<string, any>;
      const n = requests.length;
      requests.push(body);
      answer(res, body, replyTo(body as Parameters<typeof replyTo>[0], n), n, settings, billed);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    billed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
