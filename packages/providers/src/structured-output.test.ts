// Structured output on the Chat Completions and Messages wire formats (the Responses one is in
// openai-responses-provider.test.ts): what each API is sent, and what comes back for an answer
// that matches the schema and for one that does not.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { StructuredOutputError, toResponseFormat } from '@nanobot/schema';
import type { Message } from '@nanobot/schema';
import { AnthropicProvider } from './anthropic-provider.js';
import { OpenAICompatProvider } from './openai-compat-provider.js';
import { drainStream } from './test-support/drain-stream.js';
import { WireServer, replyJson, replySse } from './test-support/wire-server.js';
import { completion, textStream } from './test-support/openai-wire.js';
import { anthropicTextStream, message } from './test-support/anthropic-wire.js';

let server: WireServer;
beforeEach(async () => {
  server = await new WireServer().start();
});
afterEach(async () => {
  await server.stop();
});

const user: Message = { role: 'user', content: 'Which city?' };
const format = toResponseFormat({ name: 'city', schema: z.object({ name: z.string(), population: z.number().int() }) });

describe('toResponseFormat with a zod schema', () => {
  it('converts zod to a strict-compatible JSON Schema', () => {
    expect(format).toEqual({
      type: 'json_schema',
      name: 'city',
      schema: { type: 'object', properties: { name: { type: 'string' }, population: { type: 'integer' } }, required: ['name', 'population'], additionalProperties: false },
      strict: true,
    });
  });
});

describe('Chat Completions: response_format', () => {
  const provider = () => new OpenAICompatProvider({ model: 'gpt-4o', apiKey: 'k', baseUrl: `${server.url}/v1`, retry: { maxAttempts: 1 } });

  it('sends response_format json_schema and parses the answer', async () => {
    server.enqueue(replyJson(200, completion({ content: '{"name":"Lima","population":10000000}' })));
    const res = await provider().chat({ messages: [user], responseFormat: format });
    expect(server.requests[0].body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'city', schema: format.schema, strict: true } });
    expect(res.parsed).toEqual({ name: 'Lima', population: 10000000 });
  });

  it('an answer that fails the schema rejects with the raw text and issues; not retried', async () => {
    server.enqueue(replyJson(200, completion({ content: '{"name":"Lima"}' })));
    const error = await provider().chat({ messages: [user], responseFormat: format }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StructuredOutputError);
    const e = error as StructuredOutputError;
    expect(e.raw).toBe('{"name":"Lima"}');
    expect(e.issues.join(' ')).toMatch(/population/);
    expect(server.requests).toHaveLength(1);
  });

  it('streamed: parsed on done; invalid JSON is a StructuredOutputError, not a transport error', async () => {
    server.enqueue(replySse(textStream(['{"name":', '"Lima","population":1}'])), replySse(textStream(['Lima, ', 'probably'])));
    const ok = await drainStream(provider().stream({ messages: [user], responseFormat: format }));
    expect(ok.events.at(-1)).toMatchObject({ type: 'done', response: { parsed: { name: 'Lima', population: 1 } } });
    const bad = await drainStream(provider().stream({ messages: [user], responseFormat: format }));
    expect(bad.error).toBeInstanceOf(StructuredOutputError);
    expect(bad.error).toMatchObject({ raw: 'Lima, probably' });
  });
});

describe('Anthropic Messages: output_config.format', () => {
  const provider = () => new AnthropicProvider({ model: 'claude-sonnet-4-5', apiKey: 'k', baseUrl: server.url, retry: { maxAttempts: 1 } });

  it('sends output_config.format and parses the answer', async () => {
    server.enqueue(replyJson(200, message([{ type: 'text', text: '{"name":"Oslo","population":709000}' }])));
    const res = await provider().chat({ messages: [user], responseFormat: format });
    expect(server.requests[0].body.output_config).toEqual({ format: { type: 'json_schema', schema: format.schema } });
    expect(res.parsed).toEqual({ name: 'Oslo', population: 709000 });
  });

  it('keeps an effort hint beside the format', async () => {
    server.enqueue(replyJson(200, message([{ type: 'text', text: '{"name":"Oslo","population":1}' }])));
    await new AnthropicProvider({ model: 'claude-opus-4-6', apiKey: 'k', baseUrl: server.url }).chat({ messages: [user], responseFormat: format, reasoningEffort: 'high' });
    expect(server.requests[0].body.output_config).toEqual({ effort: 'high', format: { type: 'json_schema', schema: format.schema } });
  });

  it('a streamed answer that fails the schema rejects with StructuredOutputError', async () => {
    server.enqueue(replySse(anthropicTextStream(['{"name": 5,', ' "population": 1}']), { done: false }));
    const bad = await drainStream(provider().stream({ messages: [user], responseFormat: format }));
    expect(bad.error).toBeInstanceOf(StructuredOutputError);
    expect(bad.error).toMatchObject({ raw: '{"name": 5, "population": 1}' });
  });
});

describe('structured output with tools', () => {
  it('a tool-calling turn is not parsed (the answer comes after the tools)', async () => {
    server.enqueue(replyJson(200, completion({ content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] }, 'tool_calls')));
    const p = new OpenAICompatProvider({ model: 'gpt-4o', apiKey: 'k', baseUrl: `${server.url}/v1` });
    const res = await p.chat({ messages: [user], responseFormat: format, tools: [{ type: 'function', function: { name: 'lookup', description: 'd', parameters: { type: 'object', properties: {} } } }] });
    expect(res.toolCalls).toHaveLength(1);
    expect(res.parsed).toBeUndefined();
    expect(server.requests[0].body.response_format).toBeDefined();
  });
});
