import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LLMStreamEvent, Message } from '@nanobot/schema';
import { OpenAICompatProvider } from './openai-compat-provider.js';
import { ProviderAbortError, ProviderError } from './provider-error.js';
import { collectStream } from './collect-stream.js';
import { deepFreeze } from '@nanobot-internal/test-support';
import { drainStream } from './test-support/drain-stream.js';
import { WireServer, replyJson, replySse } from './test-support/wire-server.js';
import { chunk, completion, textStream, usageChunk } from './test-support/openai-wire.js';

let server: WireServer;
let sleeps: number[];

function provider(extra: Partial<ConstructorParameters<typeof OpenAICompatProvider>[0]> = {}): OpenAICompatProvider {
  return new OpenAICompatProvider({
    model: 'test-model',
    apiKey: 'sk-test',
    baseUrl: `${server.url}/v1`,
    retry: { sleep: async (ms) => void sleeps.push(ms) },
    ...extra,
  });
}

const user = (content: string): Message => ({ role: 'user', content });

const drain = drainStream;

beforeEach(async () => {
  server = await new WireServer().start();
  sleeps = [];
});
afterEach(async () => {
  await server.stop();
});

describe('OpenAICompatProvider.chat (JSON)', () => {
  it('sends a sanitised copy and parses text, reasoning and usage with cached tokens', async () => {
    server.enqueue(replyJson(200, completion({ content: 'hello', reasoning_content: 'thought' }, 'stop', { prompt_tokens: 100, completion_tokens: 7, total_tokens: 107, prompt_tokens_details: { cached_tokens: 64 } })));
    const messages = deepFreeze<Message[]>([
      { role: 'system', content: 'sys', _meta: { internal: true } },
      { role: 'user', content: '', timestamp: '2026-01-01' },
      { role: 'assistant', content: 'checking', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{path: "a.txt"}' } }] },
      { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'bad \ud800 text' },
    ]);
    const res = await provider().chat({ messages, tools: [{ type: 'function', function: { name: 'read_file', description: 'd', parameters: { type: 'object', properties: {} } } }], maxTokens: 50 });
    expect(res).toMatchObject({ content: 'hello', reasoningContent: 'thought', finishReason: 'stop', provider: 'openai', model: 'test-model' });
    expect(res.usage).toEqual({ inputTokens: 100, outputTokens: 7, cachedTokens: 64 });
    const sent = server.requests[0];
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: '(empty)' },
      { role: 'assistant', content: 'checking', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path": "a.txt"}' } }] },
      { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'bad \ufffd text' },
    ]);
    expect(sent.body).toMatchObject({ model: 'test-model', max_tokens: 50, tool_choice: 'auto' });
    expect(sent.body.stream).toBeUndefined();
  });

  it('parses tool calls strictly: malformed JSON stays a string, nameless calls are dropped', async () => {
    server.enqueue(
      replyJson(200, completion({ content: null, tool_calls: [
        { id: 'a', type: 'function', function: { name: 'exec', arguments: '{"command": "ls"' } },
        { id: 'b', type: 'function', function: { name: '', arguments: '{}' } },
        { id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path": "x"}' } },
      ] }, 'tool_calls')),
    );
    const res = await provider().chat({ messages: [user('go')] });
    expect(res.toolCalls.map((c) => c.name)).toEqual(['exec', 'read_file']);
    expect(res.toolCalls[0]).toMatchObject({ id: 'a', arguments: '{"command": "ls"' });
    expect(res.toolCalls[1].arguments).toEqual({ path: 'x' });
    // The repeated id was replaced so results can be matched unambiguously.
    expect(res.toolCalls[1].id).not.toBe('a');
    expect(res.finishReason).toBe('tool_calls');
  });

  it('reads content parts and refusals', async () => {
    server.enqueue(replyJson(200, completion({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] })), replyJson(200, completion({ content: null, refusal: 'I cannot help with that.' })));
    expect((await provider().chat({ messages: [user('x')] })).content).toBe('ab');
    expect((await provider().chat({ messages: [user('x')] })).content).toBe('I cannot help with that.');
  });

  it('a server that never answers times out as a retryable timeout', async () => {
    server.enqueue(() => undefined);
    const error = await provider({ timeoutMs: 100, retry: { maxAttempts: 1 } }).chat({ messages: [user('x')] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('rejects an empty choices list with a clear, non-retried error', async () => {
    server.enqueue(replyJson(200, { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [] }));
    const error = await provider().chat({ messages: [user('hi')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'empty_response', code: 'PROVIDER_EMPTY_RESPONSE', retryable: false });
    expect((error as Error).message).toMatch(/empty choices/);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 429 after Retry-After (+1 s) and then succeeds; the SDK itself does not retry', async () => {
    server.enqueue(
      replyJson(429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }, { 'retry-after': '2' }),
      replyJson(200, completion({ content: 'ok' })),
    );
    const notices: number[] = [];
    const res = await provider({ retry: { sleep: async (ms) => void sleeps.push(ms), onRetry: (n) => notices.push(n.attempt) } }).chat({ messages: [user('hi')] });
    expect(res.content).toBe('ok');
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toEqual([3000]);
    expect(notices).toEqual([1]);
  });

  it('caps a huge Retry-After at maxDelayMs', async () => {
    server.enqueue(replyJson(429, { error: { message: 'slow down' } }, { 'retry-after': '3600' }), replyJson(200, completion({ content: 'ok' })));
    await provider({ retry: { sleep: async (ms) => void sleeps.push(ms), maxDelayMs: 30_000 } }).chat({ messages: [user('hi')] });
    expect(sleeps).toEqual([30_000]);
  });

  it('retries a 500 with the backoff table, then succeeds', async () => {
    server.enqueue(replyJson(500, { error: { message: 'boom', type: 'server_error' } }), replyJson(502, { error: { message: 'bad gateway' } }), replyJson(200, completion({ content: 'ok' })));
    const res = await provider().chat({ messages: [user('hi')] });
    expect(res.content).toBe('ok');
    expect(sleeps).toEqual([1000, 2000]);
  });

  it('gives up after maxAttempts with the last retryable error', async () => {
    for (let i = 0; i < 4; i++) server.enqueue(replyJson(503, { error: { message: `down ${i}` } }));
    const error = await provider().chat({ messages: [user('hi')] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'server', status: 503, retryable: true });
    expect((error as Error).message).toMatch(/down 3/);
    expect(server.requests).toHaveLength(4);
    expect(sleeps).toEqual([1000, 2000, 4000]);
  });

  it('never retries a 400 and reports status and API code', async () => {
    server.enqueue(replyJson(400, { error: { message: "Invalid value for 'messages'", type: 'invalid_request_error', code: 'invalid_value' } }));
    const error = await provider().chat({ messages: [user('hi')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 400, retryable: false, kind: 'bad_request', code: 'PROVIDER_BAD_REQUEST', apiCode: 'invalid_value' });
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('does not retry a 429 that means the quota is exhausted', async () => {
    server.enqueue(replyJson(429, { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } }));
    const error = await provider().chat({ messages: [user('hi')] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'quota', retryable: false, status: 429 });
    expect(server.requests).toHaveLength(1);
  });

  it('retries once without images when the API rejects them, leaving the caller history untouched', async () => {
    server.enqueue(replyJson(400, { error: { message: 'this model does not support image input' } }), replyJson(200, completion({ content: 'text only' })));
    const messages = deepFreeze<Message[]>([{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }]);
    const res = await provider().chat({ messages });
    expect(res).toMatchObject({ content: 'text only', imagesStripped: true });
    expect(server.requests[1].body.messages[0].content[1]).toEqual({ type: 'text', text: '[Image not delivered to model — do not describe or reference it]' });
    expect((messages[0].content as unknown[])[1]).toMatchObject({ type: 'image_url' });
  });

  it('classifies a refused connection as retryable', async () => {
    const p = provider({ retry: { maxAttempts: 2, sleep: async (ms) => void sleeps.push(ms) } });
    await server.stop();
    const error = await p.chat({ messages: [user('hi')] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'connection', retryable: true });
    expect((error as Error).message).toContain(`is the local server running and reachable at ${p.client.baseURL}`);
    expect(sleeps).toEqual([1000]);
    // Streaming: refused before any response is a connection error, not a cut stream.
    const streamError = (await drain(p.stream({ messages: [user('hi')] }))).error;
    expect(streamError).toMatchObject({ kind: 'connection', retryable: true });
    server = await new WireServer().start();
  });

  it('turns <tool_call> text from local models into tool calls', async () => {
    server.enqueue(replyJson(200, completion({ content: 'Checking.\n<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>' })));
    const res = await provider().chat({ messages: [user('ls')] });
    expect(res.content).toBe('Checking.');
    expect(res.toolCalls).toMatchObject([{ name: 'list_dir', arguments: { path: '.' } }]);
    server.enqueue(replyJson(200, completion({ content: '<tool_call>{"name": "x"}</tool_call>' })));
    expect((await provider({ textToolCalls: false }).chat({ messages: [user('ls')] })).toolCalls).toEqual([]);
  });
});

describe('OpenAICompatProvider: histories OpenAI would reject as stored', () => {
  // A pi-mono style history: an aborted turn stored as content null, and a `read` of a PNG whose
  // result carries the image.
  const png = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
  const history = (): Message[] => deepFreeze<Message[]>([
    { role: 'user', content: 'write the plan' },
    { role: 'assistant', content: null },
    { role: 'user', content: 'see the screenshot' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'read', arguments: '{"path":"shot.png"}' } }] },
    { role: 'tool', tool_call_id: 'toolu_1', name: 'read', content: [{ type: 'text', text: 'Read image file [image/png]' }, png] },
  ]);
  const expected = [
    { role: 'user', content: 'write the plan' },
    { role: 'assistant', content: '(empty)' },
    { role: 'user', content: 'see the screenshot' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'read', arguments: '{"path": "shot.png"}' } }] },
    { role: 'tool', tool_call_id: 'toolu_1', name: 'read', content: 'Read image file [image/png]\n[image: attached to the next user message]' },
    { role: 'user', content: [{ type: 'text', text: 'Attachments from the read tool result (toolu_1):' }, png] },
  ];

  it('chat: the aborted turn goes out with text content and the image in a user message after the tool result', async () => {
    server.enqueue(replyJson(200, completion({ content: 'It shows a diagram.' })));
    const messages = history();
    const before = structuredClone(messages);
    expect((await provider().chat({ messages })).content).toBe('It shows a diagram.');
    expect(server.requests[0].body.messages).toEqual(expected);
    expect(messages).toEqual(before);
  });

  it('stream: the same body', async () => {
    server.enqueue(replySse(textStream(['A diagram.'])));
    const res = await collectStream(provider().stream({ messages: history() }));
    expect(res.content).toBe('A diagram.');
    expect(server.requests[0].body.messages).toEqual(expected);
  });
});

describe('OpenAICompatProvider keeps no reference to the caller\'s message array', () => {
  it('chat: a retry sends what was passed even if the caller appended to its array during the wait', async () => {
    server.enqueue(replyJson(500, { error: { message: 'boom' } }), replyJson(200, completion({ content: 'ok' })));
    const messages: Message[] = [user('first')];
    const p = provider({ retry: { sleep: async () => void messages.push(user('typed meanwhile')) } });
    expect((await p.chat({ messages })).content).toBe('ok');
    expect(server.requests.map((r) => r.body.messages)).toEqual([[{ role: 'user', content: 'first' }], [{ role: 'user', content: 'first' }]]);
    expect(messages).toHaveLength(2);
  });

  it('stream: the request is what was passed to stream(), not what the array holds at the first next()', async () => {
    server.enqueue(replySse(textStream(['ok'])));
    const messages: Message[] = [user('first')];
    const stream = provider().stream({ messages });
    messages.push({ role: 'assistant', content: 'not yet sent' }, user('later'));
    await collectStream(stream);
    expect(server.requests[0].body.messages).toEqual([{ role: 'user', content: 'first' }]);
  });
});

describe('OpenAICompatProvider.stream (SSE)', () => {
  it('streams text deltas and ends with one done carrying usage', async () => {
    server.enqueue(replySse([...textStream(['Hel', 'lo', ' world']).slice(0, -1), usageChunk(12, 3, 8)]));
    const { events, error } = await drain(provider().stream({ messages: [user('hi')] }));
    expect(error).toBeUndefined();
    expect(events.filter((e) => e.type === 'text_delta').map((e) => (e as { delta: string }).delta)).toEqual(['Hel', 'lo', ' world']);
    const done = events.at(-1)!;
    expect(done.type).toBe('done');
    expect(events.filter((e) => e.type === 'done')).toHaveLength(1);
    if (done.type === 'done') {
      expect(done.response).toMatchObject({ content: 'Hello world', finishReason: 'stop', usage: { inputTokens: 12, outputTokens: 3, cachedTokens: 8 } });
    }
    expect(server.requests[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('assembles a tool call whose arguments arrive split over many chunks', async () => {
    const args = JSON.stringify({ path: 'src/index.ts', content: 'export const x = 1;\n'.repeat(3) });
    const pieces = args.match(/.{1,4}/gs)!;
    server.enqueue(
      replySse([
        chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'write_file', arguments: '' } }] }),
        ...pieces.map((p) => chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] })),
        chunk({}, 'tool_calls'),
        usageChunk(5, 40),
      ]),
    );
    const { events } = await drain(provider().stream({ messages: [user('write it')] }));
    const deltas = events.filter((e) => e.type === 'tool_call_delta');
    expect(deltas[0]).toMatchObject({ index: 0, id: 'call_1', name: 'write_file' });
    expect(deltas.map((d) => (d as { argumentsDelta?: string }).argumentsDelta ?? '').join('')).toBe(args);
    const done = events.at(-1)!;
    expect(done.type === 'done' && done.response.toolCalls).toEqual([{ id: 'call_1', name: 'write_file', arguments: JSON.parse(args) }]);
    expect(done.type === 'done' && done.response.finishReason).toBe('tool_calls');
  });

  it('assembles two parallel tool calls interleaved by index', async () => {
    server.enqueue(
      replySse([
        chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'c_a', type: 'function', function: { name: 'read_file', arguments: '{"pa' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'c_b', type: 'function', function: { name: 'list_dir', arguments: '{"pa' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'th": "a"}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: 'th": "."}' } }] }),
        chunk({}, 'tool_calls'),
      ]),
    );
    const response = await collectStream(provider().stream({ messages: [user('both')] }));
    expect(response.toolCalls).toEqual([
      { id: 'c_a', name: 'read_file', arguments: { path: 'a' } },
      { id: 'c_b', name: 'list_dir', arguments: { path: '.' } },
    ]);
  });

  it('assembles calls from servers that omit the index and send object arguments', async () => {
    server.enqueue(
      replySse([
        chunk({ role: 'assistant', tool_calls: [{ id: 'x1', type: 'function', function: { name: 'a', arguments: { p: 1 } } }] }),
        chunk({ tool_calls: [{ id: 'x2', type: 'function', function: { name: 'b', arguments: '{"q":' } }] }),
        chunk({ tool_calls: [{ function: { arguments: ' 2}' } }] }),
        chunk({}, 'tool_calls'),
      ]),
    );
    const response = await collectStream(provider().stream({ messages: [user('x')] }));
    expect(response.toolCalls).toEqual([
      { id: 'x1', name: 'a', arguments: { p: 1 } },
      { id: 'x2', name: 'b', arguments: { q: 2 } },
    ]);
  });

  it('keeps streamed reasoning_content, which the SDK helpers drop', async () => {
    server.enqueue(replySse([chunk({ role: 'assistant', reasoning_content: 'let me ' }), chunk({ reasoning_content: 'think' }), chunk({ content: 'answer' }), chunk({}, 'stop')]));
    const { events } = await drain(provider().stream({ messages: [user('q')] }));
    expect(events.filter((e) => e.type === 'reasoning_delta')).toHaveLength(2);
    const done = events.at(-1)!;
    expect(done.type === 'done' && done.response).toMatchObject({ content: 'answer', reasoningContent: 'let me think' });
  });

  it('keeps malformed streamed arguments as the raw string for the registry to reject', async () => {
    server.enqueue(replySse([chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'exec', arguments: '{"command": "ls' } }] }), chunk({}, 'tool_calls')]));
    const response = await collectStream(provider().stream({ messages: [user('x')] }));
    expect(response.toolCalls[0].arguments).toBe('{"command": "ls');
  });

  it('a stream cut mid-way throws a clear error and never yields done (no retry after output)', async () => {
    server.enqueue(replySse(textStream(['one ', 'two ', 'three ', 'four']), { cutAfter: 3 }));
    const { events, error } = await drain(provider().stream({ messages: [user('count')] }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'stream_interrupted', retryable: true });
    expect((error as Error).message).toMatch(/partial answer was discarded/);
    expect(events.some((e) => e.type === 'done')).toBe(false);
    expect(events.filter((e) => e.type === 'text_delta').length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
  });

  it('a stream that closes cleanly without finish_reason is an error, not a short answer', async () => {
    server.enqueue(replySse([chunk({ role: 'assistant', content: 'par' }), chunk({ content: 'tial' })]));
    const { events, error } = await drain(provider().stream({ messages: [user('x')] }));
    expect(error).toMatchObject({ kind: 'stream_interrupted' });
    expect(events.some((e) => e.type === 'done')).toBe(false);
  });

  it('a stream cut before any output is retried transparently', async () => {
    server.enqueue(replySse(textStream(['x']), { cutAfter: 0 }), replySse(textStream(['fine'])));
    const response = await collectStream(provider().stream({ messages: [user('x')] }));
    expect(response.content).toBe('fine');
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
  });

  it('retries a 429 on stream start, then streams', async () => {
    server.enqueue(replyJson(429, { error: { message: 'rate limited' } }, { 'retry-after-ms': '250' }), replySse(textStream(['ok'])));
    const response = await collectStream(provider().stream({ messages: [user('x')] }));
    expect(response.content).toBe('ok');
    expect(sleeps).toEqual([1250]);
  });

  it('does not retry a 400 on stream start', async () => {
    server.enqueue(replyJson(400, { error: { message: 'bad', type: 'invalid_request_error' } }));
    const { error } = await drain(provider().stream({ messages: [user('x')] }));
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('an error chunk inside the stream becomes a ProviderError', async () => {
    server.enqueue(replySse([chunk({ role: 'assistant', content: 'a' }), { data: { error: { message: 'upstream overloaded', type: 'server_error', code: 502 } } }]));
    const { error } = await drain(provider().stream({ messages: [user('x')] }));
    expect(error).toMatchObject({ kind: 'server', retryable: true });
  });

  it('abort mid-stream rejects with an AbortError and stops reading', async () => {
    server.enqueue(replySse(textStream(Array.from({ length: 50 }, (_, i) => `${i} `)), { stallAfter: 3 }));
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
    expect((error as Error).name).toBe('AbortError');
    expect(events.some((e) => e.type === 'done')).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('abort during a retry wait rejects at once with an AbortError', async () => {
    server.enqueue(replyJson(429, { error: { message: 'later' } }, { 'retry-after': '30' }));
    const controller = new AbortController();
    const p = provider({ retry: { onRetry: () => setTimeout(() => controller.abort(), 5) } });
    const { error } = await drain(p.stream({ messages: [user('x')], signal: controller.signal }));
    expect(error).toBeInstanceOf(ProviderAbortError);
    expect(server.requests).toHaveLength(1);
  });

  it('an already-aborted signal rejects chat before sending', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await provider().chat({ messages: [user('x')], signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderAbortError);
    expect(server.requests).toHaveLength(0);
  });

  it('a stalled stream times out with a retryable timeout error', async () => {
    server.enqueue(replySse(textStream(['a', 'b']), { stallAfter: 1 }));
    const { error } = await drain(provider({ streamIdleTimeoutMs: 150, retry: { maxAttempts: 1 } }).stream({ messages: [user('x')] }));
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    expect((error as Error).message).toMatch(/stalled/);
  });
});

describe('OpenAICompatProvider against a local server without a key', () => {
  it('works with only a base URL (Ollama, vLLM, LM Studio)', async () => {
    server.enqueue(replyJson(200, completion({ content: 'local' })));
    const p = new OpenAICompatProvider({ model: 'llama3.2', baseUrl: `${server.url}/v1`, headers: { 'x-extra': '1' } });
    expect((await p.chat({ messages: [user('hi')] })).content).toBe('local');
    expect(server.requests[0].headers['x-extra']).toBe('1');
    expect(server.requests[0].body.model).toBe('llama3.2');
  });
});
