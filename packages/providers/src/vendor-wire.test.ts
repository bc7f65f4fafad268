import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAIChatServer } from '@nanobot-internal/provider-wire';
import type { WireServer } from '@nanobot-internal/provider-wire';
import type { LLMProvider, LLMResponse, Message } from '@nanobot/schema';
import { collectStream } from './collect-stream.js';
import { createProvider } from './create-provider.js';
import { OpenAICompatProvider } from './openai-compat-provider.js';
import { WireServer as AnthropicStandIn, replyJson } from './test-support/wire-server.js';
import { message as anthropicMessage } from './test-support/anthropic-wire.js';

// The OpenAI-compatible vendors through the real `openai` SDK, against tooling/provider-wire's
// stand-ins: each answers a broken vendor rule with the vendor's real error body.

const servers: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function vendor(name: Parameters<typeof startOpenAIChatServer>[0] extends infer O ? O extends { vendor?: infer V } ? V : never : never): Promise<WireServer> {
  const server = await startOpenAIChatServer({ vendor: name });
  servers.push(server);
  return server;
}

/** The assistant message the runner stores for an answer (its provider fields included). */
function stored(response: LLMResponse): Message {
  const message: Message = { role: 'assistant', content: response.content };
  if (response.toolCalls.length > 0) {
    message.tool_calls = response.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.arguments) }, ...(c.extra_content ? { extra_content: c.extra_content } : {}) }));
  }
  if (response.reasoningContent) message.reasoning_content = response.reasoningContent;
  Object.assign(message, response.messageFields);
  return message;
}

const tools = [{ type: 'function' as const, function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }];
const user: Message = { role: 'user', content: 'What is in notes.md?' };

/** A tool call answered and sent back; resolves to the second answer (the first in `loop.first`). */
async function toolLoop(provider: LLMProvider, streamed: boolean, loop: { first?: LLMResponse } = {}): Promise<LLMResponse> {
  const first = streamed ? await collectStream(provider.stream({ messages: [user], tools })) : await provider.chat({ messages: [user], tools });
  loop.first = first;
  expect(first.toolCalls).toHaveLength(1);
  const history: Message[] = [user, stored(first), { role: 'tool', tool_call_id: first.toolCalls[0].id, name: 'read_file', content: 'buy milk' }];
  return streamed ? collectStream(provider.stream({ messages: history, tools })) : provider.chat({ messages: history, tools });
}

describe('OpenRouter: reasoning_details go back unmodified', () => {
  for (const streamed of [false, true]) {
    it(`Gemini 3 behind OpenRouter keeps its signed reasoning across a tool call (${streamed ? 'streamed' : 'JSON'})`, async () => {
      const server = await vendor('openrouter');
      server.enqueue({ reasoning: 'I should read the file.', toolCalls: [{ name: 'read_file', input: { path: 'notes.md' } }] }, { text: 'It says: buy milk' });
      const provider = await createProvider({ model: 'google/gemini-3-pro-preview', providers: { openrouter: { apiKey: 'sk-or-test', apiBase: `${server.url}/api/v1` } }, env: {} });
      const loop: { first?: LLMResponse } = {};
      const second = await toolLoop(provider, streamed, loop);
      expect(second.content).toBe('It says: buy milk');
      expect(server.requests.map((r) => [r.status, r.violations.map((v) => v.rule)])).toEqual([[200, []], [200, []]]);
      const details = loop.first?.messageFields?.reasoning_details as Record<string, unknown>[];
      expect(details.map((d) => d.type)).toEqual(['reasoning.text', 'reasoning.encrypted']);
      const sent = (server.requests[1].body as { messages: Message[] }).messages[1];
      expect(sent.reasoning_details).toEqual(details);
      expect(server.requests[0].headers['x-openrouter-title']).toBe('nanobot');
      expect(server.requests[0].headers['http-referer']).toBe('https://github.com/HKUDS/nanobot');
    });
  }

  it('the stand-in rejects the same history sent without the spec (reasoning_details dropped)', async () => {
    const server = await vendor('openrouter');
    server.enqueue({ reasoning: 'plan', toolCalls: [{ name: 'read_file', input: { path: 'notes.md' } }] });
    const withSpec = await createProvider({ model: 'google/gemini-3-pro-preview', providers: { openrouter: { apiKey: 'k', apiBase: `${server.url}/api/v1` } }, env: {}, retry: { maxAttempts: 1 } });
    const first = await withSpec.chat({ messages: [user], tools });
    const plain = new OpenAICompatProvider({ model: 'google/gemini-3-pro-preview', apiKey: 'k', baseUrl: `${server.url}/api/v1`, retry: { maxAttempts: 1 } });
    const history: Message[] = [user, stored(first), { role: 'tool', tool_call_id: first.toolCalls[0].id, content: 'buy milk' }];
    await expect(plain.chat({ messages: history, tools })).rejects.toMatchObject({ status: 400 });
    expect(server.requests[1].violations.map((v) => v.rule)).toContain('openrouter/gemini-current-turn-signature');
  });
});

describe('Gemini (OpenAI-compatible endpoint): thought signatures ride on extra_content byte-exact', () => {
  for (const streamed of [false, true]) {
    it(`a signed call goes back with its signature (${streamed ? 'streamed' : 'JSON'})`, async () => {
      const server = await vendor('gemini-openai');
      server.enqueue({ toolCalls: [{ name: 'read_file', input: { path: 'notes.md' } }] }, { text: 'done' });
      const provider = await createProvider({ model: 'gemini-3-pro-preview', providers: { gemini: { apiKey: 'g', apiBase: `${server.url}/v1beta/openai` } }, env: {} });
      expect((await toolLoop(provider, streamed)).content).toBe('done');
      expect(server.requests.map((r) => [r.status, r.violations.length])).toEqual([[200, 0], [200, 0]]);
      const call = (server.requests[1].body as { messages: Message[] }).messages[1].tool_calls?.[0];
      expect(call?.extra_content).toMatchObject({ google: { thought_signature: expect.any(String) } });
    });
  }
});

describe('DeepSeek: reasoning_content of a tool-calling turn is sent back', () => {
  it('deepseek-reasoner through DEEPSEEK_API_KEY, JSON and streamed', async () => {
    const server = await vendor('deepseek');
    server.enqueue({ reasoning: 'Read it.', toolCalls: [{ name: 'read_file', input: { path: 'notes.md' } }] }, { text: 'milk' }, { reasoning: 'Again.', toolCalls: [{ name: 'read_file', input: { path: 'notes.md' } }] }, { text: 'milk' });
    const provider = await createProvider({ model: 'deepseek-reasoner', providers: { deepseek: { apiBase: `${server.url}/v1` } }, env: { DEEPSEEK_API_KEY: 'sk-d' } });
    expect((await toolLoop(provider, false)).content).toBe('milk');
    expect((await toolLoop(provider, true)).content).toBe('milk');
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((server.requests[1].body as { messages: Message[] }).messages[1].reasoning_content).toBe('Read it.');
  });

  it('list content becomes a string (DeepSeek takes strings only) and thinking is switched per effort', async () => {
    const server = await vendor('deepseek');
    const provider = await createProvider({ model: 'deepseek-chat', providers: { deepseek: { apiKey: 'd', apiBase: `${server.url}/v1` } }, env: {} });
    await provider.chat({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hello ' }, { type: 'text', text: 'there' }] }], reasoningEffort: 'none' });
    expect(server.requests[0].body).toMatchObject({ messages: [{ role: 'user', content: 'hello there' }], thinking: { type: 'disabled' } });
    expect(server.requests[0].status).toBe(200);
  });
});

describe('Mistral: no reasoning_content on the wire, its effort vocabulary', () => {
  it('a stored reasoning_content is not sent, low effort becomes none (omitted), Magistral gets no effort at all', async () => {
    const server = await vendor('mistral');
    const provider = await createProvider({ model: 'mistral-large-latest', providers: { mistral: { apiKey: 'm', apiBase: `${server.url}/v1` } }, env: {} });
    const history: Message[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello', reasoning_content: 'greet back' },
      { role: 'user', content: 'bye' },
    ];
    await provider.chat({ messages: history, reasoningEffort: 'low' });
    await provider.chat({ messages: history, reasoningEffort: 'medium' });
    await provider.chat({ messages: history, model: 'magistral-medium-latest', reasoningEffort: 'high' });
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 200]);
    const bodies = server.requests.map((r) => r.body as Record<string, unknown> & { messages: Message[] });
    expect(bodies[0].messages[1]).toEqual({ role: 'assistant', content: 'hello' });
    expect(bodies.map((b) => b.reasoning_effort)).toEqual([undefined, 'high', undefined]);
  });
});

describe('request quirks of other OpenAI-compatible specs', () => {
  it('Moonshot kimi-k2.7 gets temperature 1.0; OpenAI gets max_completion_tokens; no cache markers where the spec has no prompt caching', async () => {
    const server = await vendor('openai');
    const moonshot = await createProvider({ model: 'kimi-k2.7', providers: { moonshot: { apiKey: 'k', apiBase: `${server.url}/v1` } }, env: {} });
    await moonshot.chat({ messages: [user], temperature: 0.2, maxTokens: 100 });
    const openai = await createProvider({ provider: 'openai', model: 'gpt-4.1', apiKey: 'o', baseUrl: `${server.url}/v1`, env: {} });
    await openai.chat({ messages: [user], maxTokens: 100 });
    const [kimi, gpt] = server.requests.map((r) => r.body as Record<string, unknown>);
    expect(kimi).toMatchObject({ model: 'kimi-k2.7', temperature: 1, max_tokens: 100 });
    expect(gpt).toMatchObject({ model: 'gpt-4.1', max_completion_tokens: 100 });
    expect(gpt.max_tokens).toBeUndefined();
    expect(server.requests.every((r) => r.status === 200)).toBe(true);
  });

  it('a gateway strips its own prefix (AiHubMix sends the bare model) and configured headers go out', async () => {
    const server = await vendor('openai');
    const provider = await createProvider({ model: 'aihubmix/anthropic/claude-3-haiku', providers: { aihubmix: { apiKey: 'a', apiBase: `${server.url}/v1`, extraHeaders: { 'APP-Code': 'abc' } } }, env: {} });
    await provider.chat({ messages: [user] });
    expect(server.requests[0].body).toMatchObject({ model: 'claude-3-haiku' });
    expect(server.requests[0].headers['app-code']).toBe('abc');
  });
});

describe('Azure OpenAI through the SDK’s AzureOpenAI client', () => {
  it('the deployment route with api-version and the api-key header, JSON and streamed', async () => {
    const server = await vendor('azure');
    const provider = await createProvider({ provider: 'azure_openai', model: 'my-gpt-deployment', providers: { azure_openai: { apiKey: 'az-key', apiBase: server.url, apiVersion: '2024-10-21' } }, env: {} });
    expect((await provider.chat({ messages: [user] })).content).toBe('ok');
    expect((await collectStream(provider.stream({ messages: [user] }))).content).toBe('ok');
    expect(server.requests.map((r) => [r.route, r.params.deployment, r.query.get('api-version'), r.headers['api-key'], r.status])).toEqual([
      ['azure.deployments', 'my-gpt-deployment', '2024-10-21', 'az-key', 200],
      ['azure.deployments', 'my-gpt-deployment', '2024-10-21', 'az-key', 200],
    ]);
  });

  it('AZURE_OPENAI_ENDPOINT / AZURE_OPENAI_API_KEY serve once Azure is chosen; a wrong key is an auth error', async () => {
    const server = await vendor('azure');
    const provider = await createProvider({ model: 'azure/dep', env: { AZURE_OPENAI_ENDPOINT: server.url, AZURE_OPENAI_API_KEY: 'from-env' } });
    expect(provider.name).toBe('azure_openai');
    await provider.chat({ messages: [user] });
    expect(server.requests[0].headers['api-key']).toBe('from-env');
    expect(server.requests[0].params.deployment).toBe('dep');
  });
});

describe('Anthropic with a custom base', () => {
  it('Kimi Coding: its base URL, the claude-code User-Agent and the Messages route', async () => {
    const server = await new AnthropicStandIn().start();
    servers.push(server);
    server.enqueue(replyJson(200, anthropicMessage([{ type: 'text', text: 'hi' }])));
    const provider = await createProvider({ model: 'kimi-for-coding', providers: { kimiCoding: { apiKey: 'sk-kimi-1', apiBase: `${server.url}/coding/v1` } }, env: {} });
    expect((await provider.chat({ messages: [user] })).content).toBe('hi');
    expect(server.requests[0]).toMatchObject({ url: '/coding/v1/messages', body: { model: 'kimi-for-coding' } });
    expect(server.requests[0].headers['user-agent']).toBe('claude-code/0.1.0');
    expect(server.requests[0].headers['x-api-key'] ?? server.requests[0].headers.authorization).toMatch(/sk-kimi-1/);
  });

  it('MiniMax (Anthropic): MINIMAX_API_KEY and its /anthropic base', async () => {
    const server = await new AnthropicStandIn().start();
    servers.push(server);
    server.enqueue(replyJson(200, anthropicMessage([{ type: 'text', text: 'hey' }])));
    const provider = await createProvider({ provider: 'minimax_anthropic', model: 'MiniMax-M2', providers: { minimax_anthropic: { apiBase: `${server.url}/anthropic` } }, env: { MINIMAX_API_KEY: 'mm' } });
    expect((await provider.chat({ messages: [user] })).content).toBe('hey');
    expect(server.requests[0].url).toBe('/anthropic/v1/messages');
  });
});
