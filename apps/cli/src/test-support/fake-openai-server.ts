// An OpenAI-compatible chat-completions server on 127.0.0.1 for tests: answers from a script
// (a function of the request body), as JSON or as an SSE stream, and records every request.
import type { ServerResponse } from 'node:http';
import { startRecordingServer } from './recording-server.js';

export interface FakeReply {
  content?: string;
  /** Stream the content, then keep the response open until the client goes away. */
  hang?: boolean;
  toolCalls?: { id: string; name: string; arguments: string }[];
  /** `usage.prompt_tokens` to report (default 10). */
  promptTokens?: number;
}

export interface FakeOpenAiServer {
  url: string;
  requests: Record<string, any>[];
  /** Resolves when a client closed a response that was still open (an aborted stream). */
  aborted: Promise<void>;
  close(): Promise<void>;
}

function chunk(id: string, delta: Record<string, unknown>, finish: string | null): string {
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function answer(res: ServerResponse, body: Record<string, any>, reply: FakeReply, n: number): void {
  const id = `chatcmpl-${n}`;
  const finish = reply.toolCalls && reply.toolCalls.length > 0 ? 'tool_calls' : 'stop';
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created: 1,
        model: 'fake-model',
        choices: [
          {
            index: 0,
            finish_reason: finish,
            message: {
              role: 'assistant',
              content: reply.content ?? null,
              ...(reply.toolCalls ? { tool_calls: reply.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
            },
          },
        ],
        usage: { prompt_tokens: reply.promptTokens ?? 10, completion_tokens: 5, total_tokens: (reply.promptTokens ?? 10) + 5 },
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.write(chunk(id, { role: 'assistant', content: '' }, null));
  // Text in several pieces, so the client really assembles a stream.
  for (const piece of (reply.content ?? '').match(/\S+\s*|\s+/g) ?? []) res.write(chunk(id, { content: piece }, null));
  if (reply.hang) return;
  (reply.toolCalls ?? []).forEach((call, index) => {
    res.write(chunk(id, { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }, null));
    const half = Math.ceil(call.arguments.length / 2);
    for (const part of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
      if (part) res.write(chunk(id, { tool_calls: [{ index, function: { arguments: part } }] }, null));
    }
  });
  res.write(chunk(id, {}, finish));
  res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [], usage: { prompt_tokens: reply.promptTokens ?? 10, completion_tokens: 5, total_tokens: (reply.promptTokens ?? 10) + 5 } })}\n\n`);
  res.end('data: [DONE]\n\n');
}

/** Starts the server; `script(body, n)` decides each answer (n counts requests from 0). */
export async function startFakeOpenAiServer(script: (body: Record<string, any>, n: number) => FakeReply): Promise<FakeOpenAiServer> {
  const { origin, requests, aborted, close } = await startRecordingServer({
    accepts: (req) => req.method === 'POST' && req.url?.endsWith('/chat/completions') === true,
    notFoundBody: (req) => ({ error: { message: `no route ${req.method} ${req.url}` } }),
    respond: (res, body, n) => answer(res, body, script(body, n), n),
  });
  return { url: `${origin}/v1`, requests, aborted, close };
}
