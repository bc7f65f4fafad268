// An Anthropic Messages API server on 127.0.0.1 for tests: POST /v1/messages answered from a
// script (a function of the request body) as a JSON message or as the SSE event stream
// (message_start, content_block_*, message_delta, message_stop), recording every request.
import type { ServerResponse } from 'node:http';
import { startRecordingServer } from './recording-server.js';

export interface FakeAnthropicReply {
  text?: string;
  toolUses?: { id: string; name: string; input: Record<string, unknown> }[];
  /** Answer with this HTTP error instead (Anthropic's error envelope). */
  error?: { status: number; type: string; message: string };
  /** Stream the text, then keep the response open until the client goes away. */
  hang?: boolean;
}

export interface FakeAnthropicServer {
  /** The API root as a user configures it (no `/v1`). */
  url: string;
  /** Request bodies, with the request's `_path` and `_headers`. */
  requests: Record<string, any>[];
  /** Resolves when a client closed a response that was still open (an aborted stream). */
  aborted: Promise<void>;
  close(): Promise<void>;
}

function sse(res: ServerResponse, type: string, data: Record<string, unknown>): void {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

function answer(res: ServerResponse, body: Record<string, any>, reply: FakeAnthropicReply, n: number): void {
  if (reply.error) {
    res.writeHead(reply.error.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'error', error: { type: reply.error.type, message: reply.error.message } }));
    return;
  }
  const id = `msg_${n}`;
  const model = String(body.model);
  const uses = reply.toolUses ?? [];
  const stopReason = uses.length > 0 ? 'tool_use' : 'end_turn';
  const blocks = [...(reply.text ? [{ type: 'text', text: reply.text }] : []), ...uses.map((u) => ({ type: 'tool_use', id: u.id, name: u.name, input: u.input }))];
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 6 } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  sse(res, 'message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } });
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'text') {
      sse(res, 'content_block_start', { index, content_block: { type: 'text', text: '' } });
      // Several pieces, so the client really assembles a stream.
      for (const piece of (block as { text: string }).text.match(/\S+\s*|\s+/g) ?? []) sse(res, 'content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      if (reply.hang) return;
    } else {
      const use = block as { id: string; name: string; input: Record<string, unknown> };
      sse(res, 'content_block_start', { index, content_block: { type: 'tool_use', id: use.id, name: use.name, input: {} } });
      const json = JSON.stringify(use.input);
      const half = Math.ceil(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)]) if (part) sse(res, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } });
    }
    sse(res, 'content_block_stop', { index });
  }
  sse(res, 'message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 6 } });
  sse(res, 'message_stop', {});
  res.end();
}

/** Starts the server; `script(body, n)` decides each answer (n counts requests from 0). */
export async function startFakeAnthropicServer(script: (body: Record<string, any>, n: number) => FakeAnthropicReply): Promise<FakeAnthropicServer> {
  const { origin, requests, aborted, close } = await startRecordingServer({
    accepts: (req) => req.method === 'POST' && (req.url ?? '').split('?')[0] === '/v1/messages',
    notFoundBody: (req) => ({ type: 'error', error: { type: 'not_found_error', message: `no route ${req.method} ${req.url}` } }),
    recordPath: true,
    respond: (res, body, n) => answer(res, body, script(body, n), n),
  });
  return { url: origin, requests, aborted, close };
}

/** The API key a request carried, whichever header the SDK used for it. */
export function keyOf(request: Record<string, any>): string | undefined {
  const headers = request._headers as Record<string, string | undefined>;
  if (headers['x-api-key']) return headers['x-api-key'];
  const auth = headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
}
