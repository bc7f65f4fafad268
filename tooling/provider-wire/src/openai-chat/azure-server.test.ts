// The Azure OpenAI routes against the official openai SDK's AzureOpenAI client: deployment
// route with api-version and the api-key header, JSON and streamed, and the real errors for a
// broken rule, a missing key and a missing api-version.
import { AzureOpenAI, APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireServer } from '../core/wire-server.js';
import { startOpenAIChatServer } from './openai-chat-server.js';

let server: WireServer;
beforeAll(async () => {
  server = await startOpenAIChatServer({ vendor: 'azure' });
});
afterAll(() => server.stop());

const client = (): AzureOpenAI => new AzureOpenAI({ endpoint: server.url, apiKey: 'azure-key', apiVersion: '2024-10-21', deployment: 'my-gpt', maxRetries: 0 });

describe('Azure OpenAI chat completions through AzureOpenAI', () => {
  it('answers on the deployment route with api-version and api-key', async () => {
    server.enqueue({ text: 'Hello from Azure.' });
    const out = await client().chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hi' }] });
    expect(out.choices[0]?.message.content).toBe('Hello from Azure.');
    const req = server.requests.at(-1)!;
    expect(req.path).toBe('/openai/deployments/my-gpt/chat/completions');
    expect(req.query.get('api-version')).toBe('2024-10-21');
    expect(req.headers['api-key']).toBe('azure-key');
  });

  it('streams a tool call', async () => {
    server.enqueue({ toolCalls: [{ name: 'lookup', input: { q: 'x' } }] });
    const stream = await client().chat.completions.create({ model: 'gpt-4.1', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }] });
    let args = '';
    let name = '';
    let usage = 0;
    for await (const chunk of stream) {
      for (const c of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += c.function?.name ?? '';
        args += c.function?.arguments ?? '';
      }
      usage = chunk.usage?.total_tokens ?? usage;
    }
    expect(name).toBe('lookup');
    expect(JSON.parse(args)).toEqual({ q: 'x' });
    expect(usage).toBeGreaterThan(0);
  });

  it('rejects an unanswered tool call with the API\'s 400', async () => {
    const error = await client().chat.completions.create({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'user', content: 'well?' }],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).message).toContain("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1");
  });

  it('answers 401 without a key and 404 without api-version, as Azure does', async () => {
    const noKey = await fetch(`${server.url}/openai/deployments/my-gpt/chat/completions?api-version=2024-10-21`, { method: 'POST', body: '{}' });
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as { error: { message: string } }).error.message).toMatch(/^Access denied due to invalid subscription key/);
    const noVersion = await fetch(`${server.url}/openai/deployments/my-gpt/chat/completions`, { method: 'POST', headers: { 'api-key': 'k' }, body: '{}' });
    expect(noVersion.status).toBe(404);
  });
});
