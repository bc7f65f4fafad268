// The local Responses API against the official openai SDK and @ai-sdk/openai (responses): a
// legal request succeeds whole and streamed (encrypted reasoning round-trips with store off),
// input_tokens counts, broken rules get the API's 400 with its wording.
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, jsonSchema, streamText, tool } from 'ai';
import type { ModelMessage } from 'ai';
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireServer } from '../core/wire-server.js';
import { checkResponses, responsesCompactionContent, responsesEncryptedContent, startResponsesServer } from './responses-server.js';

let server: WireServer;
let client: OpenAI;
beforeAll(async () => {
  server = await startResponsesServer();
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-local', maxRetries: 0 });
});
afterAll(() => server.stop());

const reasoning = { type: 'reasoning' as const, id: 'rs_1', summary: [], encrypted_content: responsesEncryptedContent('rs_1') };
const call = { type: 'function_call' as const, call_id: 'call_1', name: 'lookup', arguments: '{"q":"a"}' };
const output = { type: 'function_call_output' as const, call_id: 'call_1', output: 'found' };

describe('Responses through the openai SDK', () => {
  it('takes a compaction item back as it was given, first in the input (what preceded it dropped)', async () => {
    const out = await client.responses.create({ model: 'gpt-5', store: false, input: [{ type: 'compaction', id: 'cmp_1', encrypted_content: responsesCompactionContent('cmp_1') }, { role: 'user', content: 'Go on.' }] });
    expect(out.output_text).toBe('ok');
    expect(server.requests.at(-1)!.violations).toEqual([]);
  });

  it('answers a legal input with encrypted reasoning (store off), streams, and counts input tokens', async () => {
    server.enqueue({ reasoning: 'think', text: 'Done.' });
    const out = await client.responses.create({ model: 'gpt-5', store: false, include: ['reasoning.encrypted_content'], input: [{ role: 'user', content: 'Look up a' }, reasoning, call, output] });
    expect(out.output_text).toBe('Done.');
    const rs = out.output.find((i) => i.type === 'reasoning')!;
    expect(rs.encrypted_content).toBe(responsesEncryptedContent(rs.id));
    server.enqueue({ text: 'Streamed.', toolCalls: [{ name: 'lookup', input: { q: 'b' } }] });
    const events: string[] = [];
    let text = '';
    for await (const e of await client.responses.create({ model: 'gpt-5', stream: true, input: 'Hi' })) {
      events.push(e.type);
      if (e.type === 'response.output_text.delta') text += e.delta;
    }
    expect(text).toBe('Streamed.');
    expect(events).toContain('response.function_call_arguments.done');
    expect(events.at(-1)).toBe('response.completed');
    const count = await client.responses.inputTokens.count({ model: 'gpt-5', input: 'How many tokens?' });
    expect(count.input_tokens).toBeGreaterThan(0);
  });

  it.each([
    ['a changed encrypted reasoning item', [{ role: 'user', content: 'x' }, { ...reasoning, encrypted_content: 'tampered' }, call, output], 'The encrypted content for item rs_1 could not be verified. Reason: Encrypted content could not be decrypted or parsed.'],
    ['a reasoning item without the item that followed it', [{ role: 'user', content: 'x' }, reasoning, { role: 'user', content: 'y' }], "Item 'rs_1' of type 'reasoning' was provided without its required following item."],
    ['an output without its call', [{ role: 'user', content: 'x' }, output], 'No tool call found for function call output with call_id call_1.'],
    ['a call without its output', [{ role: 'user', content: 'x' }, call, { role: 'user', content: 'y' }], 'No tool output found for function call call_1.'],
    ['a changed compaction item', [{ type: 'compaction', id: 'cmp_1', encrypted_content: `${responsesCompactionContent('cmp_1')}x` }, { role: 'user', content: 'x' }], 'The encrypted content for item cmp_1 could not be verified. Reason: Encrypted content could not be decrypted or parsed.'],
    ['a reasoning item without summary', [{ role: 'user', content: 'x' }, { type: 'reasoning', id: 'rs_1', encrypted_content: responsesEncryptedContent('rs_1') }, call, output], "Missing required parameter: 'input[1].summary'."],
  ] as [string, OpenAI.Responses.ResponseInputItem[], string][])('rejects %s with the API\'s 400', async (_name, input, wording) => {
    const error = await client.responses.create({ model: 'gpt-5', store: false, input }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).message).toContain(wording);
  });
});

describe('Responses through @ai-sdk/openai', () => {
  const model = () => createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-local' }).responses('gpt-5');
  const tools = { lookup: tool({ inputSchema: jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } } }) }) };
  const providerOptions = { openai: { store: false, include: ['reasoning.encrypted_content'] } };

  it('round-trips encrypted reasoning and a tool call with store off, and streams', async () => {
    server.enqueue({ reasoning: 'need it', toolCalls: [{ name: 'lookup', input: { q: 'a' } }] }, { text: 'Found.' });
    const first = await generateText({ model: model(), tools, prompt: 'Look up a', providerOptions, maxRetries: 0 });
    const c = first.toolCalls[0]!;
    const messages: ModelMessage[] = [{ role: 'user', content: 'Look up a' }, ...first.response.messages, { role: 'tool', content: [{ type: 'tool-result', toolCallId: c.toolCallId, toolName: 'lookup', output: { type: 'text', value: 'found' } }] }];
    expect((await generateText({ model: model(), tools, messages, providerOptions, maxRetries: 0 })).text).toBe('Found.');
    expect(server.requests.at(-1)!.violations).toEqual([]);
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('encrypted_content');
    server.enqueue({ text: 'Streamed.' });
    expect(await streamText({ model: model(), prompt: 'Hi', maxRetries: 0 }).text).toBe('Streamed.');
  });

  it('surfaces the API\'s error for a result whose call is gone', async () => {
    const error = await generateText({ model: model(), maxRetries: 0, messages: [{ role: 'user', content: 'x' }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_gone', toolName: 'lookup', output: { type: 'text', value: 'r' } }] }] }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).message).toContain('No tool call found for function call output with call_id call_gone.');
  });

  it('checkResponses never throws on malformed input', () => {
    for (const body of [{}, { input: 3 }, { input: [null, { type: 'reasoning' }] }]) expect(() => checkResponses(body as never)).not.toThrow();
  });
});
