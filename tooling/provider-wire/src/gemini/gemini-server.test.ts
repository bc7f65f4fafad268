// The local Gemini API against @ai-sdk/google: generateContent and streamGenerateContent with
// thought signatures round-tripping, countTokens and models.get, and Google's 400 for a broken
// rule.
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { APICallError, generateText, jsonSchema, streamText, tool } from 'ai';
import type { ModelMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiCallSignature, GEMINI_SIGNATURE_PLACEHOLDERS } from '../core/gemini-signature.js';
import type { WireServer } from '../core/wire-server.js';
import { checkGemini, startGeminiServer } from './gemini-server.js';

let server: WireServer;
beforeAll(async () => {
  server = await startGeminiServer();
});
afterAll(() => server.stop());

const model = (id = 'gemini-3-pro-preview') => createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey: 'gemini-key' })(id);
const tools = { lookup: tool({ inputSchema: jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } } }) }) };
const result = (toolCallId: string): ModelMessage => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName: 'lookup', output: { type: 'text', value: 'found' } }] });

describe('Gemini generateContent through @ai-sdk/google', () => {
  it('round-trips a function call with its thought signature, whole and streamed', async () => {
    server.enqueue({ reasoning: 'need it', toolCalls: [{ name: 'lookup', input: { q: 'a' } }] }, { text: 'Found.' });
    const first = await generateText({ model: model(), tools, prompt: 'Look up a', maxRetries: 0 });
    const call = first.toolCalls[0]!;
    expect(call.providerMetadata?.google?.thoughtSignature).toBe(geminiCallSignature('lookup', { q: 'a' }));
    const messages: ModelMessage[] = [{ role: 'user', content: 'Look up a' }, ...first.response.messages, result(call.toolCallId)];
    expect((await generateText({ model: model(), tools, messages, maxRetries: 0 })).text).toBe('Found.');
    const sent = server.requests.at(-1)!;
    expect(sent.violations).toEqual([]);
    expect(JSON.stringify(sent.body)).toContain(geminiCallSignature('lookup', { q: 'a' }));
    server.enqueue({ text: 'Streamed.' });
    expect(await streamText({ model: model(), prompt: 'Hi', maxRetries: 0 }).text).toBe('Streamed.');
    expect(server.requests.at(-1)!.query.get('alt')).toBe('sse');
  });

  it('answers countTokens and models.get', async () => {
    const count = await fetch(`${server.url}/v1beta/models/gemini-3-pro-preview:countTokens`, { method: 'POST', headers: { 'x-goog-api-key': 'k' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello there' }] }] }) });
    expect(((await count.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    const info = await fetch(`${server.url}/v1beta/models/gemini-3-pro-preview`, { headers: { 'x-goog-api-key': 'k' } });
    expect(await info.json()).toMatchObject({ name: 'models/gemini-3-pro-preview', inputTokenLimit: 1_048_576 });
    expect((await fetch(`${server.url}/v1beta/models/gemini-3-pro-preview`)).status).toBe(403);
  });

  it('rejects a tool result followed by a user message with Google\'s 400 (two user contents in a row)', async () => {
    const messages: ModelMessage[] = [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'a' }, providerOptions: { google: { thoughtSignature: geminiCallSignature('lookup', { q: 'a' }) } } }] }, result('c1'), { role: 'user', content: 'and?' }];
    const error = await generateText({ model: model(), tools, messages, maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(400);
    expect(JSON.parse((error as APICallError).responseBody!)).toEqual({ error: { code: 400, message: 'Please ensure that multiturn requests alternate between user and model.', status: 'INVALID_ARGUMENT' } });
  });

  it('rejects a moved or forged signature, and accepts the documented placeholder', async () => {
    const forged: ModelMessage[] = [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'CHANGED' }, providerOptions: { google: { thoughtSignature: geminiCallSignature('lookup', { q: 'a' }) } } }] }, result('c1')];
    const error = await generateText({ model: model(), tools, messages: forged, maxRetries: 0 }).catch((e: unknown) => e);
    expect((error as APICallError).statusCode).toBe(400);
    expect((error as APICallError).message).toContain('Corrupted thought signature.');
    server.enqueue({ text: 'ok' });
    const placeholder: ModelMessage[] = [forged[0]!, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'a' }, providerOptions: { google: { thoughtSignature: GEMINI_SIGNATURE_PLACEHOLDERS[0] } } }] }, result('c1')];
    expect((await generateText({ model: model(), tools, messages: placeholder, maxRetries: 0 })).text).toBe('ok');
  });
});

describe('checkGemini', () => {
  it('reports the structural rules by id', () => {
    const call = { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'g', args: {} } }] };
    expect(checkGemini({ contents: [{ role: 'user', parts: [{ text: 'x' }] }, call, { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] }] }, 'gemini-2.5-flash').map((v) => v.rule)).toEqual(['gemini/response-count']);
    expect(checkGemini({ contents: [call] }, 'gemini-2.5-flash').map((v) => v.rule)).toEqual(['gemini/call-turn-position']);
    expect(checkGemini({ contents: [{ role: 'user', parts: [] }, { role: 'model', parts: [{ text: '' }] }] }, 'gemini-2.5-flash').map((v) => v.rule)).toEqual(['gemini/non-empty-parts', 'gemini/no-empty-text']);
    expect(checkGemini({ contents: [{ role: 'user', parts: [{ text: 'x' }] }, call, { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }, { functionResponse: { name: 'g', response: {} } }] }] }, 'gemini-3-pro-preview').map((v) => v.rule)).toEqual(['gemini/current-turn-signature']);
    for (const body of [{}, { contents: 'x' }, { contents: [null, { parts: [null] }] }]) expect(() => checkGemini(body as never)).not.toThrow();
  });
});
