// The local Messages API against @anthropic-ai/sdk and @ai-sdk/anthropic: legal requests succeed
// whole and streamed (thinking signatures included), count_tokens and models answer, broken rules
// get the API's 400 with its wording.
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { APICallError, generateText, jsonSchema, streamText, tool } from 'ai';
import type { ModelMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireSignature } from '../core/signatures.js';
import type { WireServer } from '../core/wire-server.js';
import { checkAnthropicMessages } from './check-anthropic.js';
import { startAnthropicServer } from './anthropic-server.js';
import { anthropicCompactionContent } from './anthropic-rules.js';

let server: WireServer;
let client: Anthropic;
beforeAll(async () => {
  server = await startAnthropicServer();
  client = new Anthropic({ baseURL: server.url, apiKey: 'sk-ant-local', maxRetries: 0 });
});
afterAll(() => server.stop());

const MODEL = 'claude-sonnet-4-5-20250929';
const sig = (t: string): string => wireSignature('anthropic-thinking', t);
const loop: Anthropic.MessageParam[] = [
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: [{ type: 'thinking', thinking: 'Look it up.', signature: sig('Look it up.') }, { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
];
const compaction = (content: string, encrypted: string) => ({ type: 'compaction', content, encrypted_content: encrypted }) as unknown as Anthropic.ContentBlockParam;
const tools: Anthropic.Tool[] = [{ name: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];

describe('Messages API through @anthropic-ai/sdk', () => {
  it('answers a legal tool loop with thinking on, and streams', async () => {
    server.enqueue({ reasoning: 'Say sunny.', text: 'Sunny.' });
    const out = await client.messages.create({ model: MODEL, max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 1024 }, tools, messages: loop });
    expect(out.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect((out.content[0] as Anthropic.ThinkingBlock).signature).toBe(sig('Say sunny.'));
    server.enqueue({ reasoning: 'r', text: 'Streamed answer.', toolCalls: [{ name: 'weather', input: { city: 'Rome' } }] });
    const final = await client.messages.stream({ model: MODEL, max_tokens: 1024, tools, messages: loop }).finalMessage();
    expect(final.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect((final.content[1] as Anthropic.TextBlock).text).toBe('Streamed answer.');
    expect((final.content[2] as Anthropic.ToolUseBlock).input).toEqual({ city: 'Rome' });
    expect((final.content[0] as Anthropic.ThinkingBlock).signature).toBe(sig('r'));
  });

  it('takes a compaction block back as it was returned, its turn first after a user turn (what preceded it dropped)', async () => {
    const summary = 'The user asked for the weather in Paris; it is sunny.';
    const out = await client.messages.create({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: '(conversation continued)' }, { role: 'assistant', content: [compaction(summary, anthropicCompactionContent(summary)), { type: 'text', text: 'Continuing.' }] }, { role: 'user', content: 'And Rome?' }] });
    expect(out.content[0]).toMatchObject({ type: 'text', text: 'ok' });
    expect(server.requests.at(-1)!.violations).toEqual([]);
  });

  it('counts tokens and lists models with their limits', async () => {
    const count = await client.messages.countTokens({ model: MODEL, messages: loop, tools });
    expect(count.input_tokens).toBeGreaterThan(0);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('claude-opus-4-7');
    const res = await fetch(`${server.url}/v1/models/claude-opus-4-7`, { headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' } });
    expect(await res.json()).toMatchObject({ id: 'claude-opus-4-7', max_input_tokens: 1_000_000, max_tokens: 128_000 });
  });

  it.each([
    ['an unanswered tool_use', [loop[0]!, loop[1]!, { role: 'user', content: 'never mind' }], 'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.', {}],
    ['two user turns', [loop[0]!, { role: 'user', content: 'again' }], 'messages: roles must alternate between', {}],
    ['whitespace-only text', [{ role: 'user', content: [{ type: 'text', text: ' ' }] }], 'messages: text content blocks must contain non-whitespace text', {}],
    ['a changed thinking block', [loop[0]!, { role: 'assistant', content: [{ type: 'thinking', thinking: 'Changed.', signature: sig('Look it up.') }, (loop[1]!.content as Anthropic.ContentBlockParam[])[1]!] }, loop[2]!], 'messages.1.content.0: Invalid `signature` in `thinking` block', {}],
    ['a tool loop without its thinking while thinking is on', [loop[0]!, { role: 'assistant', content: [(loop[1]!.content as Anthropic.ContentBlockParam[])[1]!] }, loop[2]!], 'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`.', { thinking: { type: 'enabled', budget_tokens: 1024 } }],
    ['a compaction block whose summary was changed', [{ role: 'user', content: 'Go on.' }, { role: 'assistant', content: [compaction('Changed summary.', anthropicCompactionContent('The summary.')), { type: 'text', text: 'Continuing.' }] }, { role: 'user', content: 'And?' }], 'messages.1.content.0: Invalid `encrypted_content` in `compaction` block', {}],
    ['prefill on a model without it', [loop[0]!, { role: 'assistant', content: 'Sure' }], 'This model does not support assistant message prefill. The conversation must end with a user message.', { model: 'claude-opus-4-7' }],
  ] as [string, Anthropic.MessageParam[], string, Record<string, unknown>][])('rejects %s with the API\'s 400', async (_name, messages, wording, extra) => {
    const error = await client.messages.create({ model: MODEL, max_tokens: 2048, tools, messages, ...extra } as Anthropic.MessageCreateParamsNonStreaming).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect((error as APIError).message).toContain(wording);
  });
});

describe('Messages API through @ai-sdk/anthropic', () => {
  const model = () => createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'sk-ant-local' })(MODEL);
  const aiTools = { weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } } }) }) };

  it('round-trips a tool call with signed reasoning, whole and streamed', async () => {
    server.enqueue({ reasoning: 'need it', toolCalls: [{ name: 'weather', input: { city: 'Oslo' } }] }, { text: 'Cold.' });
    const first = await generateText({ model: model(), tools: aiTools, prompt: 'Oslo?', maxRetries: 0 });
    const call = first.toolCalls[0]!;
    const messages: ModelMessage[] = [{ role: 'user', content: 'Oslo?' }, ...first.response.messages, { role: 'tool', content: [{ type: 'tool-result', toolCallId: call.toolCallId, toolName: 'weather', output: { type: 'text', value: '-5C' } }] }];
    expect((await generateText({ model: model(), tools: aiTools, messages, maxRetries: 0 })).text).toBe('Cold.');
    expect(server.requests.at(-1)!.violations).toEqual([]);
    server.enqueue({ text: 'Streamed.' });
    expect(await streamText({ model: model(), prompt: 'Hi', maxRetries: 0 }).text).toBe('Streamed.');
  });

  it('surfaces the API\'s error for an assistant turn left empty', async () => {
    // An aborted turn of unsigned reasoning only: @ai-sdk/anthropic drops the reasoning and sends empty content.
    const error = await generateText({ model: model(), maxRetries: 0, messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [{ type: 'reasoning', text: 'unsigned' }] }, { role: 'user', content: 'b' }] }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(400);
    expect((error as APICallError).message).toContain('messages.1: all messages must have non-empty content except for the optional final assistant message');
  });
});

describe('checkAnthropicMessages', () => {
  it('judges a bare messages list strictly when asked (a governed copy), and never throws', () => {
    expect(checkAnthropicMessages({ messages: loop }, { wholeBody: false })).toEqual([]);
    expect(checkAnthropicMessages({ messages: [...loop, { role: 'assistant', content: 'x' }] }, { wholeBody: false, strictLastTurn: true }).map((v) => v.rule)).toEqual(['anthropic/last-message-user']);
    for (const body of [{}, { messages: 5 }, { messages: [null, { role: 'user', content: [null, 3] }] }, { system: 'x', tools: 'y' }]) expect(() => checkAnthropicMessages(body as never)).not.toThrow();
  });
});
