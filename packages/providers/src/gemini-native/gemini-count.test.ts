import { geminiCallSignature, startGeminiServer } from '@nanobot-internal/provider-wire';
import type { Message } from '@nanobot/schema';
import { describe, expect, it } from 'vitest';
import { OpenAICompatProvider } from '../openai-compat-provider.js';
import { findProviderSpec } from '../registry/find-provider-spec.js';
import type { ProviderSpec } from '../registry/provider-spec.js';
import { GEMINI_SKIP_SIGNATURE, toGeminiRequest } from './to-gemini-contents.js';

// Gemini's OpenAI-compatible endpoint has no count; the native countTokens beside it does. The
// stand-in checks the converted contents against Google's rules (alternation, call/response
// placement and counts, Gemini 3 signatures byte-exact).

const tools = [{ type: 'function' as const, function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }];

function history(signature?: string): Message[] {
  const call = { id: 'call_1', type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"notes.md"}' }, ...(signature ? { extra_content: { google: { thought_signature: signature } } } : {}) };
  return [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'What is in notes.md?' },
    { role: 'assistant', content: null, tool_calls: [call] },
    { role: 'tool', tool_call_id: 'call_1', content: 'buy milk' },
  ];
}

describe('toGeminiRequest', () => {
  it('system → systemInstruction, calls → functionCall, results → functionResponse in the next user turn, neighbours merged', () => {
    const signature = geminiCallSignature('read_file', { path: 'notes.md' });
    const request = toGeminiRequest([...history(signature), { role: 'user', content: [{ type: 'text', text: 'and?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }], tools);
    expect(request.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    expect(request.contents).toEqual([
      { role: 'user', parts: [{ text: 'What is in notes.md?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { path: 'notes.md' } }, thoughtSignature: signature }] },
      { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { result: 'buy milk' } } }, { text: 'and?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] },
    ]);
    expect(request.tools).toEqual([{ functionDeclarations: [{ name: 'read_file', description: 'Read a file', parametersJsonSchema: tools[0].function.parameters }] }]);
  });

  it("a current-turn call that lost its signature gets Google's documented placeholder; an older one is left alone", () => {
    const request = toGeminiRequest(history());
    expect(request.contents[1].parts[0].thoughtSignature).toBe(GEMINI_SKIP_SIGNATURE);
    const older = toGeminiRequest([...history(), { role: 'assistant', content: 'It says buy milk.' }, { role: 'user', content: 'thanks' }]);
    expect(older.contents[1].parts[0]).not.toHaveProperty('thoughtSignature');
  });
});

describe('Gemini countTokens through the provider', () => {
  const spec = findProviderSpec('gemini') as ProviderSpec;

  it('counts the request as chat would send it, natively, with the same key; legal for Google', async () => {
    const server = await startGeminiServer();
    try {
      const provider = new OpenAICompatProvider({ model: 'gemini-3-pro-preview', apiKey: 'AIza-k', baseUrl: `${server.url}/v1beta/openai/`, spec, name: 'gemini' });
      const counted = await provider.countTokens!({ messages: history(geminiCallSignature('read_file', { path: 'notes.md' })), tools });
      expect(counted).toMatchObject({ provider: 'gemini', model: 'gemini-3-pro-preview' });
      expect(counted.inputTokens).toBeGreaterThan(0);
      const sent = server.requests[0];
      expect(sent).toMatchObject({ method: 'POST', path: '/v1beta/models/gemini-3-pro-preview:countTokens' });
      expect(sent.violations).toEqual([]);
      expect(sent.headers['x-goog-api-key']).toBe('AIza-k');
      expect((sent.body as { generateContentRequest: { model: string } }).generateContentRequest.model).toBe('models/gemini-3-pro-preview');
    } finally {
      await server.stop();
    }
  });

  it('a rule Google enforces and a 404 reject with a ProviderError (the runner falls back to its estimate)', async () => {
    const server = await startGeminiServer();
    try {
      const provider = new OpenAICompatProvider({ model: 'gemini-3-pro-preview', apiKey: 'AIza-k', baseUrl: `${server.url}/v1beta/openai/`, spec, name: 'gemini' });
      // A corrupted signature (not the one that call came with) is refused by Google.
      await expect(provider.countTokens!({ messages: history('forged') })).rejects.toMatchObject({ kind: 'bad_request', status: 400 });
      const wrongPath = new OpenAICompatProvider({ model: 'gemini-3-pro-preview', apiKey: 'AIza-k', baseUrl: `${server.url}/elsewhere/`, spec, name: 'gemini' });
      await expect(wrongPath.countTokens!({ messages: history() })).rejects.toMatchObject({ kind: 'not_found', status: 404 });
    } finally {
      await server.stop();
    }
  });

  it('only the Gemini spec has it: other OpenAI-compatible providers have no count endpoint', () => {
    expect(new OpenAICompatProvider({ model: 'gpt-4.1', apiKey: 'k' }).countTokens).toBeUndefined();
    expect(new OpenAICompatProvider({ model: 'deepseek-chat', apiKey: 'k', spec: findProviderSpec('deepseek') as ProviderSpec }).countTokens).toBeUndefined();
  });
});
