import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from './anthropic-provider.js';
import { OpenAIResponsesProvider } from './openai-responses-provider.js';
import { ProviderError } from './provider-error.js';
import { WireServer, replyJson } from './test-support/wire-server.js';

// Exact counts from the count endpoints, through the real SDKs against a local server.

let server: WireServer;
beforeEach(async () => {
  server = await new WireServer().start();
});
afterEach(async () => {
  await server.stop();
});

const request = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hello' },
  ],
  tools: [{ type: 'function' as const, function: { name: 'read_file', description: 'Read', parameters: { type: 'object', properties: {} } } }],
  maxTokens: 999,
};

describe('Anthropic /v1/messages/count_tokens', () => {
  it('counts the body chat would send, without its output settings', async () => {
    server.enqueue(replyJson(200, { input_tokens: 42 }));
    const provider = new AnthropicProvider({ model: 'claude-sonnet-4-6', apiKey: 'k', baseUrl: server.url });
    expect(await provider.countTokens(request)).toEqual({ inputTokens: 42, provider: 'anthropic', model: 'claude-sonnet-4-6' });
    const sent = server.requests[0];
    expect(sent.url).toBe('/v1/messages/count_tokens');
    expect(sent.body).toMatchObject({ model: 'claude-sonnet-4-6', messages: [{ role: 'user' }], tools: [{ name: 'read_file' }] });
    expect(JSON.stringify(sent.body.system)).toContain('Be brief.');
    expect(sent.body.max_tokens).toBeUndefined();
  });

  it('a 404, a malformed answer or a missing count reject with a ProviderError and are not retried', async () => {
    const provider = new AnthropicProvider({ model: 'claude-sonnet-4-6', apiKey: 'k', baseUrl: server.url });
    server.enqueue(replyJson(404, { type: 'error', error: { type: 'not_found_error', message: 'model: nope' } }));
    await expect(provider.countTokens(request)).rejects.toMatchObject({ kind: 'not_found', status: 404 });
    server.enqueue((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"input_tokens": ');
    });
    await expect(provider.countTokens(request)).rejects.toBeInstanceOf(ProviderError);
    server.enqueue(replyJson(200, { tokens: 3 }));
    await expect(provider.countTokens(request)).rejects.toMatchObject({ kind: 'empty_response' });
    expect(server.requests).toHaveLength(3);
  });
});

describe('OpenAI /v1/responses/input_tokens', () => {
  it('counts the Responses body', async () => {
    server.enqueue(replyJson(200, { object: 'response.input_tokens', input_tokens: 17 }));
    const provider = new OpenAIResponsesProvider({ model: 'gpt-5-mini', apiKey: 'k', baseUrl: `${server.url}/v1` });
    expect(await provider.countTokens(request)).toEqual({ inputTokens: 17, provider: 'openai-responses', model: 'gpt-5-mini' });
    expect(server.requests[0].url).toBe('/v1/responses/input_tokens');
    expect(JSON.stringify(server.requests[0].body)).toContain('Be brief.');
    expect(server.requests[0].body).toMatchObject({ model: 'gpt-5-mini', tools: [{ type: 'function', name: 'read_file' }] });
    expect(server.requests[0].body.max_output_tokens).toBeUndefined();
  });

  it('a server error rejects', async () => {
    server.enqueue(replyJson(500, { error: { message: 'boom', type: 'server_error' } }));
    const provider = new OpenAIResponsesProvider({ model: 'gpt-5-mini', apiKey: 'k', baseUrl: `${server.url}/v1` });
    await expect(provider.countTokens(request)).rejects.toMatchObject({ kind: 'server', status: 500 });
  });
});
