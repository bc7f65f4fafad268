import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LLMStreamEvent, Message } from '@nanobot/schema';
import Anthropic from '@anthropic-ai/sdk';
import { AnthropicProvider } from './anthropic-provider.js';
import { ProviderAbortError, ProviderError } from './provider-error.js';
import { collectStream } from './collect-stream.js';
import { deepFreeze } from '@nanobot-internal/test-support';
import { drainStream } from './test-support/drain-stream.js';
import { WireServer, replyJson, replySse } from './test-support/wire-server.js';
import type { SseFrame } from './test-support/wire-server.js';
import { anthropicTextStream, blockDelta, blockStart, blockStop, message, messageDelta, messageStart, messageStop } from './test-support/anthropic-wire.js';

let server: WireServer;
let sleeps: number[];

function provider(extra: Partial<ConstructorParameters<typeof AnthropicProvider>[0]> = {}): AnthropicProvider {
  return new AnthropicProvider({
    model: 'claude-test',
    apiKey: 'sk-ant-test',
    baseUrl: server.url,
    retry: { sleep: async (ms) => void sleeps.push(ms) },
    ...extra,
  });
}

const sse = (frames: SseFrame[], options: { cutAfter?: number; stallAfter?: number } = {}) => replySse(frames, { ...options, done: false });
const user = (content: string): Message => ({ role: 'user', content });

const drain = drainStream;

beforeEach(async () => {
  server = await new WireServer().start();
  sleeps = [];
});
afterEach(async () => {
  await server.stop();
});

describe('AnthropicProvider.chat (JSON)', () => {
  it('converts the history (all system messages, tool blocks, merged turns, cache markers) and parses the answer', async () => {
    server.enqueue(
      replyJson(200, message([
        { type: 'thinking', thinking: 'hmm', signature: 'sig1' },
        { type: 'text', text: 'Reading ' },
        { type: 'text', text: 'it.' },
        { type: 'tool_use', id: 'toolu_2', name: 'read_file', input: { path: 'b.txt' } },
      ], 'tool_use', { input_tokens: 20, output_tokens: 9, cache_read_input_tokens: 300, cache_creation_input_tokens: 50 })),
    );
    const messages = deepFreeze<Message[]>([
      { role: 'system', content: 'You are nanobot.' },
      { role: 'system', content: 'Runtime: UTC.' },
      { role: 'user', content: 'first' },
      { role: 'user', content: [{ type: 'text', text: 'second' }] },
      { role: 'assistant', content: 'on it', tool_calls: [{ id: 'call.1', type: 'function', function: { name: 'read_file', arguments: '{"path": "a.txt"}' } }] },
      { role: 'tool', tool_call_id: 'call.1', name: 'read_file', content: 'A' },
      { role: 'user', content: 'and b?' },
    ]);
    const tools = [
      { type: 'function' as const, function: { name: 'read_file', description: 'Read', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
      { type: 'function' as const, function: { name: 'mcp_x_y', description: 'MCP', parameters: { type: 'object', properties: {} } } },
    ];
    const res = await provider().chat({ messages, tools, maxTokens: 1000 });
    expect(res).toMatchObject({ content: 'Reading it.', finishReason: 'tool_calls', reasoningContent: 'hmm', provider: 'anthropic', model: 'claude-test' });
    expect(res.toolCalls).toEqual([{ id: 'toolu_2', name: 'read_file', arguments: { path: 'b.txt' } }]);
    expect(res.thinkingBlocks).toEqual([{ type: 'thinking', thinking: 'hmm', signature: 'sig1' }]);
    expect(res.usage).toEqual({ inputTokens: 370, outputTokens: 9, cachedTokens: 300, cacheCreationTokens: 50 });

    const sent = server.requests[0];
    expect(sent.url).toBe('/v1/messages');
    expect(sent.headers.authorization ?? sent.headers['x-api-key']).toMatch(/sk-ant-test/);
    expect(sent.headers['anthropic-version']).toBeTruthy();
    expect(sent.body.system).toEqual([
      { type: 'text', text: 'You are nanobot.' },
      { type: 'text', text: 'Runtime: UTC.', cache_control: { type: 'ephemeral' } },
    ]);
    const toolId = sent.body.messages[1].content.find((b: { type: string }) => b.type === 'tool_use').id;
    expect(toolId).toMatch(/^call_1_[0-9a-f]{8}$/);
    expect(sent.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'first' }, { type: 'text', text: 'second' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'on it' }, { type: 'tool_use', id: toolId, name: 'read_file', input: { path: 'a.txt' } , cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: 'A' }, { type: 'text', text: 'and b?' }] },
    ]);
    expect(sent.body.tools).toEqual([
      { name: 'read_file', description: 'Read', input_schema: tools[0].function.parameters, cache_control: { type: 'ephemeral' } },
      { name: 'mcp_x_y', description: 'MCP', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } },
    ]);
    expect(sent.body).toMatchObject({ model: 'claude-test', max_tokens: 1000, tool_choice: { type: 'auto' } });
  });

  it('retries 429 with Retry-After and 529 overloaded, then succeeds', async () => {
    server.enqueue(
      replyJson(429, { type: 'error', error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' } }, { 'retry-after': '3' }),
      replyJson(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
      replyJson(200, message([{ type: 'text', text: 'ok' }])),
    );
    const res = await provider().chat({ messages: [user('hi')] });
    expect(res.content).toBe('ok');
    expect(sleeps).toEqual([4000, 2000]);
    expect(server.requests).toHaveLength(3);
  });

  it('a server that never answers times out as a retryable timeout', async () => {
    server.enqueue(() => undefined);
    const error = await provider({ timeoutMs: 100, retry: { maxAttempts: 1 } }).chat({ messages: [user('x')] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('never retries a 400 invalid_request_error', async () => {
    server.enqueue(replyJson(400, { type: 'error', error: { type: 'invalid_request_error', message: 'messages: roles must alternate' } }));
    const error = await provider().chat({ messages: [user('hi')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 400, retryable: false, kind: 'bad_request', apiType: 'invalid_request_error' });
    expect(server.requests).toHaveLength(1);
  });

  it('keeps malformed tool input as text for the registry to reject', async () => {
    server.enqueue(replyJson(200, message([{ type: 'tool_use', id: 'toolu_1', name: 'exec', input: '{"command": ' }], 'tool_use')));
    const res = await provider().chat({ messages: [user('hi')] });
    expect(res.toolCalls[0].arguments).toBe('{"command": ');
  });

  it('streams instead when the SDK refuses a long non-streaming call ("Streaming is required")', async () => {
    server.enqueue(sse(anthropicTextStream(['long ', 'answer'])));
    const client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const res = await provider({ client }).chat({ messages: [user('write a book')], maxTokens: 64_000 });
    expect(res.content).toBe('long answer');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].body.stream).toBe(true);
  });

  it('strips a trailing /v1 from the base URL (the SDK adds it)', async () => {
    server.enqueue(replyJson(200, message([{ type: 'text', text: 'ok' }])));
    await provider({ baseUrl: `${server.url}/v1` }).chat({ messages: [user('hi')] });
    expect(server.requests[0].url).toBe('/v1/messages');
  });
});

describe('AnthropicProvider.stream (SSE)', () => {
  it('streams text and reports usage once (message_delta totals are not added twice)', async () => {
    const frames = anthropicTextStream(['Hi', ' there']);
    frames[0] = messageStart({ input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 });
    frames[frames.length - 2] = messageDelta('end_turn', { output_tokens: 12 });
    server.enqueue(sse(frames));
    const { events, error } = await drain(provider().stream({ messages: [user('hi')] }));
    expect(error).toBeUndefined();
    expect(events.filter((e) => e.type === 'text_delta').map((e) => (e as { delta: string }).delta)).toEqual(['Hi', ' there']);
    const done = events.at(-1)!;
    expect(done.type === 'done' && done.response).toMatchObject({ content: 'Hi there', finishReason: 'stop', usage: { inputTokens: 15, outputTokens: 12, cachedTokens: 5 } });
    expect(server.requests[0].body.stream).toBe(true);
  });

  it('assembles tool input from input_json_delta fragments (not onto the start event\'s {})', async () => {
    const input = JSON.stringify({ path: 'notes/today.md', content: 'line\n'.repeat(5) });
    const pieces = input.match(/.{1,3}/gs)!;
    server.enqueue(
      sse([
        messageStart(),
        blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
        blockDelta(0, { type: 'thinking_delta', thinking: 'plan: ' }),
        blockDelta(0, { type: 'thinking_delta', thinking: 'write' }),
        blockDelta(0, { type: 'signature_delta', signature: 'SIG' }),
        blockStop(0),
        blockStart(1, { type: 'tool_use', id: 'toolu_w', name: 'write_file', input: {} }),
        ...pieces.map((p) => blockDelta(1, { type: 'input_json_delta', partial_json: p })),
        blockStop(1),
        messageDelta('tool_use'),
        messageStop(),
      ]),
    );
    const { events } = await drain(provider().stream({ messages: [user('write')] }));
    expect(events.filter((e) => e.type === 'reasoning_delta')).toHaveLength(2);
    const starts = events.filter((e) => e.type === 'tool_call_delta' && e.name);
    expect(starts).toEqual([{ type: 'tool_call_delta', index: 0, id: 'toolu_w', name: 'write_file' }]);
    const done = events.at(-1)!;
    expect(done.type).toBe('done');
    if (done.type !== 'done') return;
    expect(done.response.toolCalls).toEqual([{ id: 'toolu_w', name: 'write_file', arguments: JSON.parse(input) }]);
    expect(done.response.thinkingBlocks).toEqual([{ type: 'thinking', thinking: 'plan: write', signature: 'SIG' }]);
    expect(done.response.finishReason).toBe('tool_calls');
  });

  it('assembles two parallel tool calls, including one with no arguments', async () => {
    server.enqueue(
      sse([
        messageStart(),
        blockStart(0, { type: 'text', text: '' }),
        blockDelta(0, { type: 'text_delta', text: 'Both.' }),
        blockStop(0),
        blockStart(1, { type: 'tool_use', id: 'toolu_a', name: 'read_file', input: {} }),
        blockDelta(1, { type: 'input_json_delta', partial_json: '{"path": "a"}' }),
        blockStop(1),
        blockStart(2, { type: 'tool_use', id: 'toolu_b', name: 'list_tools', input: {} }),
        blockDelta(2, { type: 'input_json_delta', partial_json: '' }),
        blockStop(2),
        messageDelta('tool_use'),
        messageStop(),
      ]),
    );
    const res = await collectStream(provider().stream({ messages: [user('go')] }));
    expect(res.content).toBe('Both.');
    expect(res.toolCalls).toEqual([
      { id: 'toolu_a', name: 'read_file', arguments: { path: 'a' } },
      { id: 'toolu_b', name: 'list_tools', arguments: {} },
    ]);
  });

  it('an overloaded_error event before any output is retried', async () => {
    server.enqueue(
      sse([messageStart(), { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }]),
      sse(anthropicTextStream(['fine'])),
    );
    const res = await collectStream(provider().stream({ messages: [user('x')] }));
    expect(res.content).toBe('fine');
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toEqual([1000]);
  });

  it('retries a 500 on stream start', async () => {
    server.enqueue(replyJson(500, { type: 'error', error: { type: 'api_error', message: 'Internal server error' } }), sse(anthropicTextStream(['ok'])));
    const res = await collectStream(provider().stream({ messages: [user('x')] }));
    expect(res.content).toBe('ok');
    expect(sleeps).toEqual([1000]);
  });

  it('a stream cut mid-way throws a clear error and yields no done', async () => {
    server.enqueue(sse(anthropicTextStream(['a', 'b', 'c', 'd']), { cutAfter: 4 }));
    const { events, error } = await drain(provider().stream({ messages: [user('x')] }));
    expect(error).toMatchObject({ kind: 'stream_interrupted', retryable: true });
    expect(events.some((e) => e.type === 'done')).toBe(false);
    expect(events.some((e) => e.type === 'text_delta')).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('a stream that ends without message_stop is an error', async () => {
    server.enqueue(sse(anthropicTextStream(['a', 'b']).slice(0, -1)));
    const { error } = await drain(provider().stream({ messages: [user('x')] }));
    expect(error).toMatchObject({ kind: 'stream_interrupted' });
  });

  it('malformed streamed tool JSON stays a string', async () => {
    server.enqueue(sse([messageStart(), blockStart(0, { type: 'tool_use', id: 't1', name: 'exec', input: {} }), blockDelta(0, { type: 'input_json_delta', partial_json: '{"command": "l' }), blockStop(0), messageDelta('tool_use'), messageStop()]));
    const res = await collectStream(provider().stream({ messages: [user('x')] }));
    expect(res.toolCalls[0].arguments).toBe('{"command": "l');
  });

  it('does not retry a 400 on stream start', async () => {
    server.enqueue(replyJson(400, { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } }));
    const { error } = await drain(provider().stream({ messages: [user('x')] }));
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('skips ping events, SSE comments and nameless events; hands on event types it does not know', async () => {
    const ping = { event: 'ping', data: { type: 'ping' } };
    server.enqueue(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const frames = anthropicTextStream(['He', 'llo']);
      res.write(': keep-alive comment\n\n');
      for (const [i, f] of frames.entries()) {
        if (i === 2) res.write(`event: ${ping.event}\ndata: ${JSON.stringify(ping.data)}\n\n`);
        if (i === 3) res.write('data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"IGNORED"}}\n\n');
        if (i === 3) res.write('event: some_future_event\ndata: {"type":"some_future_event"}\n\n');
        res.write(`event: ${f.event}\ndata: ${JSON.stringify(f.data)}\n\n`);
      }
      res.end();
    });
    const res = await collectStream(provider().stream({ messages: [user('x')] }));
    expect(res.content).toBe('Hello');
  });

  it('an error event that is not JSON is a clear error, and nothing is half-applied', async () => {
    server.enqueue(sse([messageStart(), blockStart(0, { type: 'text', text: '' }), blockDelta(0, { type: 'text_delta', text: 'par' }), { event: 'error', data: 'upstream exploded' }]));
    const { events, error } = await drain(provider().stream({ messages: [user('x')] }));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toContain('upstream exploded');
    // Thrown as the SDK's own iterator would (an APIError), not as a JSON parse failure.
    expect((error as ProviderError).cause).toBeInstanceOf(Anthropic.APIError);
    expect(events.some((e) => e.type === 'done')).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('a consumer that stops early closes the HTTP response', async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    server.enqueue(async (req, res) => {
      res.on('close', () => closed());
      await replySse(anthropicTextStream(Array.from({ length: 40 }, (_, i) => `${i} `)), { stallAfter: 6, done: false })(req, res);
    });
    for await (const e of provider().stream({ messages: [user('x')] })) if (e.type === 'text_delta') break;
    await connectionClosed;
    expect(server.requests).toHaveLength(1);
  });

  it('abort mid-stream rejects with an AbortError', async () => {
    server.enqueue(sse(anthropicTextStream(Array.from({ length: 40 }, (_, i) => `${i} `)), { stallAfter: 4 }));
    const controller = new AbortController();
    const events: LLMStreamEvent[] = [];
    let error: unknown;
    try {
      for await (const e of provider().stream({ messages: [user('x')], signal: controller.signal })) {
        events.push(e);
        if (e.type === 'text_delta') controller.abort();
      }
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProviderAbortError);
    expect(events.some((e) => e.type === 'done')).toBe(false);
  });
});

describe('AnthropicProvider response ids', () => {
  it('regenerates a repeated tool_use id in one response with the toolu_ prefix', async () => {
    server.enqueue(replyJson(200, message([{ type: 'tool_use', id: 'toolu_x', name: 'a', input: {} }, { type: 'tool_use', id: 'toolu_x', name: 'b', input: {} }], 'tool_use')));
    const res = await provider().chat({ messages: [user('hi')] });
    expect(res.toolCalls[0].id).toBe('toolu_x');
    expect(res.toolCalls[1].id).toMatch(/^toolu_[A-Za-z0-9]{18}$/);
  });
});
