import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StructuredOutputError } from '@nanobot/schema';
import type { LLMStreamEvent, Message, ProviderNotice, ToolDefinition } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { OpenAIResponsesProvider } from './openai-responses-provider.js';
import { ProviderAbortError, ProviderError } from './provider-error.js';
import { drainStream } from './test-support/drain-stream.js';
import { WireServer, replyJson, replySse } from './test-support/wire-server.js';
import type { SseFrame } from './test-support/wire-server.js';
import { callItem, ev, reasoningItem, responseBody, responseStream, textItem } from './test-support/responses-wire.js';

let server: WireServer;
let sleeps: number[];

function provider(extra: Partial<ConstructorParameters<typeof OpenAIResponsesProvider>[0]> = {}): OpenAIResponsesProvider {
  return new OpenAIResponsesProvider({ model: 'gpt-test', apiKey: 'sk-test', baseUrl: `${server.url}/v1`, retry: { sleep: async (ms) => void sleeps.push(ms) }, ...extra });
}

const sse = (frames: SseFrame[], options: { cutAfter?: number } = {}) => replySse(frames, { ...options, done: false });
const user = (content: string): Message => ({ role: 'user', content });
const readFile: ToolDefinition = { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } };

beforeEach(async () => {
  server = await new WireServer().start();
  sleeps = [];
});
afterEach(async () => {
  await server.stop();
});

describe('OpenAIResponsesProvider.chat (JSON)', () => {
  it('sends input items, function tools and store:false, and parses text, calls, reasoning and usage', async () => {
    server.enqueue(replyJson(200, responseBody([reasoningItem('rs_1', 'Look at the file first.', 'ENC1'), textItem('Reading it.'), callItem('call_1', 'read_file', '{"path":"a.txt"}')])));
    const messages = deepFreeze<Message[]>([
      { role: 'system', content: 'sys' },
      { role: 'developer', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }], timestamp: 'x' },
    ]);
    const res = await provider().chat({ messages, tools: [readFile], maxTokens: 500, reasoningEffort: 'low' });
    const sent = server.requests[0];
    expect(sent.url).toBe('/v1/responses');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body).toEqual({
      model: 'gpt-test',
      input: [
        { role: 'system', content: 'sys' },
        { role: 'developer', content: 'be brief' },
        { role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' }] },
      ],
      tools: [{ type: 'function', name: 'read_file', description: 'Read a file', parameters: readFile.function.parameters, strict: false }],
      tool_choice: 'auto',
      max_output_tokens: 500,
      reasoning: { effort: 'low', summary: 'auto' },
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    expect(res).toMatchObject({ content: 'Reading it.', finishReason: 'tool_calls', reasoningContent: 'Look at the file first.', provider: 'openai-responses', model: 'gpt-test' });
    expect(res.toolCalls).toEqual([{ id: 'call_1', name: 'read_file', arguments: { path: 'a.txt' } }]);
    expect(res.thinkingBlocks).toEqual([{ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look at the file first.' }], encrypted_content: 'ENC1' }]);
    expect(res.usage).toEqual({ inputTokens: 120, outputTokens: 30, cachedTokens: 100, reasoningTokens: 12 });
  });

  it('sends reasoning items back byte-exact, before the call they led to, with the call answered', async () => {
    server.enqueue(replyJson(200, responseBody([textItem('done')])));
    const history = deepFreeze<Message[]>([
      user('read a.txt'),
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path": "a.txt"}' } }],
        thinking_blocks: [{ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 's' }], encrypted_content: 'gAAAA+/=\u00e9' }, { type: 'thinking', thinking: 'anthropic-only', signature: 'sig' }],
      },
      { role: 'tool', tool_call_id: 'call_1', name: 'read_file', content: 'hello' },
    ]);
    await provider().chat({ messages: history });
    expect(server.requests[0].body.input).toEqual([
      { role: 'user', content: 'read a.txt' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 's' }], encrypted_content: 'gAAAA+/=\u00e9' },
      { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path": "a.txt"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'hello' },
    ]);
    // A non-reasoning model is not asked for encrypted reasoning (the API rejects that).
    expect(server.requests[0].body.include).toBeUndefined();
  });

  it('maps an incomplete response to finish reason "length"', async () => {
    server.enqueue(replyJson(200, responseBody([textItem('partial')], { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } })));
    const res = await provider().chat({ messages: [user('x')] });
    expect(res).toMatchObject({ content: 'partial', finishReason: 'length' });
  });

  it('retries a 429 after Retry-After (+1 s), telling onNotice, then succeeds', async () => {
    server.enqueue(replyJson(429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }, { 'retry-after': '2' }), replyJson(200, responseBody([textItem('ok')])));
    const notices: ProviderNotice[] = [];
    const res = await provider().chat({ messages: [user('x')], onNotice: (n) => notices.push(n) });
    expect(res.content).toBe('ok');
    expect(sleeps).toEqual([3000]);
    expect(server.requests).toHaveLength(2);
    expect(notices).toEqual([{ type: 'retry', provider: 'openai-responses', attempt: 1, delayMs: 3000, reason: 'rate_limit (429)', status: 429 }]);
  });

  it('does not retry a 400 and classifies it', async () => {
    server.enqueue(replyJson(400, { error: { message: "No tool output found for function call call_9.", type: 'invalid_request_error', code: null, param: 'input' } }));
    const error = await provider().chat({ messages: [user('x')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'bad_request', retryable: false, status: 400 });
    expect(server.requests).toHaveLength(1);
  });

  it('structured output: text.format in the body, the answer parsed; an off-schema answer is a StructuredOutputError with the raw text', async () => {
    const format = { type: 'json_schema' as const, name: 'city', schema: { type: 'object', properties: { name: { type: 'string' }, population: { type: 'integer' } }, required: ['name', 'population'], additionalProperties: false }, strict: true };
    server.enqueue(replyJson(200, responseBody([textItem('{"name":"Oslo","population":709000}')])), replyJson(200, responseBody([textItem('{"name":"Oslo","population":"many"}')])));
    const ok = await provider().chat({ messages: [user('x')], responseFormat: format });
    expect(server.requests[0].body.text).toEqual({ format: { type: 'json_schema', name: 'city', schema: format.schema, strict: true } });
    expect(ok.parsed).toEqual({ name: 'Oslo', population: 709000 });
    const error = await provider().chat({ messages: [user('x')], responseFormat: format }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect(error).toMatchObject({ code: 'STRUCTURED_OUTPUT_INVALID', raw: '{"name":"Oslo","population":"many"}' });
    expect(server.requests).toHaveLength(2);
  });
});

describe('OpenAIResponsesProvider.stream (SSE)', () => {
  it('streams text and reasoning deltas and function-call arguments split across events', async () => {
    const args = '{"path": "caf\u00e9/r\u00e9sum\u00e9.txt", "limit": 10}';
    const output = [reasoningItem('rs_1', 'thinking…', 'ENC'), textItem('Let me read it.'), callItem('call_1', 'read_file', args), callItem('call_2', 'read_file', '{"path":"b"}')];
    server.enqueue(sse(responseStream(output, { textChunks: (t) => t.match(/.{1,3}/gsu) ?? [], argChunks: (a) => [...a].map((c) => c) })));
    const { events, error } = await drainStream(provider().stream({ messages: [user('go')], tools: [readFile] }));
    expect(error).toBeUndefined();
    expect(server.requests[0].body.stream).toBe(true);
    const text = events.filter((e): e is Extract<LLMStreamEvent, { type: 'text_delta' }> => e.type === 'text_delta').map((e) => e.delta);
    expect(text.join('')).toBe('Let me read it.');
    expect(text.length).toBeGreaterThan(3);
    expect(events.find((e) => e.type === 'reasoning_delta')).toEqual({ type: 'reasoning_delta', delta: 'thinking…' });
    const calls = events.filter((e): e is Extract<LLMStreamEvent, { type: 'tool_call_delta' }> => e.type === 'tool_call_delta');
    expect(calls[0]).toEqual({ type: 'tool_call_delta', index: 0, id: 'call_1', name: 'read_file' });
    expect(calls.filter((c) => c.index === 0).map((c) => c.argumentsDelta ?? '').join('')).toBe(args);
    expect(calls.some((c) => c.index === 1 && c.id === 'call_2')).toBe(true);
    const done = events.at(-1);
    expect(done?.type).toBe('done');
    if (done?.type !== 'done') return;
    expect(done.response.toolCalls).toEqual([
      { id: 'call_1', name: 'read_file', arguments: { path: 'caf\u00e9/r\u00e9sum\u00e9.txt', limit: 10 } },
      { id: 'call_2', name: 'read_file', arguments: { path: 'b' } },
    ]);
    expect(done.response).toMatchObject({ content: 'Let me read it.', finishReason: 'tool_calls', usage: { inputTokens: 120, cachedTokens: 100, reasoningTokens: 12 } });
    expect(done.response.thinkingBlocks).toEqual([{ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'thinking…' }], encrypted_content: 'ENC' }]);
  });

  it('assembles from the streamed items when the final event omits the output', async () => {
    const output = [textItem('hi'), callItem('c1', 'read_file', '{"path":"x"}')];
    server.enqueue(sse(responseStream(output, { final: responseBody([]) })));
    const { events } = await drainStream(provider().stream({ messages: [user('go')] }));
    const done = events.at(-1);
    expect(done?.type === 'done' && done.response).toMatchObject({ content: 'hi', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'x' } }] });
  });

  it('a stream cut after output started is an error (not retried, nothing duplicated)', async () => {
    server.enqueue(sse(responseStream([textItem('hello world')], { textChunks: (t) => t.split(' ') }), { cutAfter: 4 }));
    const { events, error } = await drainStream(provider().stream({ messages: [user('go')] }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'stream_interrupted', retryable: true });
    expect(events.some((e) => e.type === 'done')).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('a stream that ends without response.completed is stream_interrupted', async () => {
    const frames = responseStream([textItem('hello')]);
    server.enqueue(sse(frames.slice(0, -1)));
    const { error } = await drainStream(provider().stream({ messages: [user('go')] }));
    expect(error).toMatchObject({ kind: 'stream_interrupted' });
  });

  it('retries a 429 before the first event, then streams', async () => {
    server.enqueue(replyJson(429, { error: { message: 'rate limited' } }, { 'retry-after-ms': '250' }), sse(responseStream([textItem('ok')])));
    const { events, error } = await drainStream(provider().stream({ messages: [user('go')] }));
    expect(error).toBeUndefined();
    expect(sleeps).toEqual([1250]);
    expect(events.at(-1)).toMatchObject({ type: 'done', response: { content: 'ok' } });
  });

  it('a response.failed event becomes a classified ProviderError', async () => {
    server.enqueue(sse([ev('response.created', { response: responseBody([]) }), ev('response.failed', { response: { ...responseBody([]), status: 'failed', error: { code: 'server_error', message: 'The model crashed.' } } })]));
    const { error } = await drainStream(provider({ retry: { maxAttempts: 1 } }).stream({ messages: [user('go')] }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'server', retryable: true });
    expect((error as Error).message).toContain('The model crashed.');
  });

  it('a 400 on stream start is thrown once, unretried', async () => {
    server.enqueue(replyJson(400, { error: { message: 'Invalid input', type: 'invalid_request_error' } }));
    const { error } = await drainStream(provider().stream({ messages: [user('go')] }));
    expect(error).toMatchObject({ kind: 'bad_request', status: 400 });
    expect(server.requests).toHaveLength(1);
  });

  it('aborting mid-stream rejects with ProviderAbortError', async () => {
    const controller = new AbortController();
    server.enqueue(replySse(responseStream([textItem('a b c d e f')], { textChunks: (t) => t.split(' ') }), { stallAfter: 4, done: false }));
    const stream = provider().stream({ messages: [user('go')], signal: controller.signal });
    const seen: LLMStreamEvent[] = [];
    const error = await (async () => {
      try {
        for await (const e of stream) {
          seen.push(e);
          if (e.type === 'text_delta') controller.abort();
        }
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ProviderAbortError);
    expect(seen.filter((e) => e.type === 'text_delta')).toHaveLength(1);
  });

  it('structured output while streaming: the done response carries the parsed value', async () => {
    const format = { type: 'json_schema' as const, name: 'n', schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false } };
    server.enqueue(sse(responseStream([textItem('{"n": 4}')], { textChunks: (t) => [t.slice(0, 3), t.slice(3)] })), sse(responseStream([textItem('not json')])));
    const { events } = await drainStream(provider().stream({ messages: [user('go')], responseFormat: format }));
    expect(events.at(-1)).toMatchObject({ type: 'done', response: { parsed: { n: 4 } } });
    const bad = await drainStream(provider().stream({ messages: [user('go')], responseFormat: format }));
    expect(bad.error).toBeInstanceOf(StructuredOutputError);
    expect(bad.error).toMatchObject({ raw: 'not json' });
    expect(server.requests).toHaveLength(2);
  });
});
