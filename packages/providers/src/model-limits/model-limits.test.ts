import { startAnthropicServer, startGeminiServer, startOpenAIChatServer } from '@nanobot-internal/provider-wire';
import type { WireServer as ProviderWireServer } from '@nanobot-internal/provider-wire';
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../anthropic-provider.js';
import { createProvider } from '../create-provider.js';
import { FallbackProvider } from '../fallback-provider.js';
import { OpenAICompatProvider } from '../openai-compat-provider.js';
import { ProviderError } from '../provider-error.js';
import { findProviderSpec } from '../registry/find-provider-spec.js';
import type { ProviderSpec } from '../registry/provider-spec.js';
import { WireServer, replyJson } from '../test-support/wire-server.js';

// Each provider's published limits through its real SDK (or, for Gemini's native API, fetch)
// against tooling/provider-wire's stand-ins, which publish the documented fields.

const servers: { stop(): Promise<void> }[] = [];
async function started<T extends { stop(): Promise<void> }>(server: Promise<T>): Promise<T> {
  const s = await server;
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const spec = (name: string): ProviderSpec => findProviderSpec(name) as ProviderSpec;

describe('Anthropic GET /v1/models/{id}', () => {
  it('reads max_input_tokens and max_tokens through @anthropic-ai/sdk', async () => {
    const server: ProviderWireServer = await started(startAnthropicServer({ models: [{ id: 'claude-opus-4-7', maxInputTokens: 1_000_000, maxTokens: 128_000 }] }));
    const provider = new AnthropicProvider({ model: 'claude-opus-4-7', apiKey: 'k', baseUrl: server.url });
    expect(await provider.modelLimits!({})).toEqual({ provider: 'anthropic', model: 'claude-opus-4-7', contextWindow: 1_000_000, maxOutput: 128_000 });
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/models/claude-opus-4-7']);
  });

  it('an unknown model is a not_found ProviderError; a model published without limits has none', async () => {
    const server = await started(startAnthropicServer({ models: [{ id: 'claude-old' }] }));
    const provider = new AnthropicProvider({ model: 'claude-nope', apiKey: 'k', baseUrl: server.url });
    await expect(provider.modelLimits!({})).rejects.toMatchObject({ kind: 'not_found', status: 404 });
    expect(await provider.modelLimits!({ model: 'claude-old' })).toEqual({ provider: 'anthropic', model: 'claude-old' });
  });

  it('Anthropic-compatible vendors publish none: createProvider leaves modelLimits off for them', async () => {
    const kimi = await createProvider({ provider: 'kimi_coding', model: 'kimi-for-coding', apiKey: 'k', env: {} });
    expect(kimi.modelLimits).toBeUndefined();
    const claude = await createProvider({ model: 'claude-sonnet-4-6', apiKey: 'k', env: {} });
    expect(typeof claude.modelLimits).toBe('function');
  });
});

describe('OpenRouter GET /models', () => {
  it('reads context_length and top_provider.max_completion_tokens through the openai SDK', async () => {
    const server = await started(startOpenAIChatServer({ vendor: 'openrouter', models: [{ id: 'moonshotai/kimi-k2.6', contextLength: 262_144, maxOutput: 65_536 }, { id: 'anthropic/claude-sonnet-4.6', contextLength: 1_000_000 }] }));
    const provider = new OpenAICompatProvider({ model: 'moonshotai/kimi-k2.6', apiKey: 'sk-or-k', baseUrl: `${server.url}/api/v1`, spec: spec('openrouter'), name: 'openrouter' });
    expect(await provider.modelLimits!({})).toEqual({ provider: 'openrouter', model: 'moonshotai/kimi-k2.6', contextWindow: 262_144, maxOutput: 65_536 });
    // max_completion_tokens null: only the window is published.
    expect(await provider.modelLimits!({ model: 'anthropic/claude-sonnet-4.6' })).toEqual({ provider: 'openrouter', model: 'anthropic/claude-sonnet-4.6', contextWindow: 1_000_000 });
    await expect(provider.modelLimits!({ model: 'nobody/nothing' })).rejects.toMatchObject({ kind: 'not_found' });
    expect(server.requests.every((r) => r.path === '/api/v1/models')).toBe(true);
  });

  it('a provider whose spec publishes nothing has no modelLimits (OpenAI lists models without limits)', () => {
    expect(new OpenAICompatProvider({ model: 'gpt-4.1', apiKey: 'k', spec: spec('openai') }).modelLimits).toBeUndefined();
    expect(new OpenAICompatProvider({ model: 'deepseek-chat', apiKey: 'k', spec: spec('deepseek') }).modelLimits).toBeUndefined();
  });
});

describe('Gemini models.get beside the OpenAI-compatible endpoint', () => {
  it('reads inputTokenLimit and outputTokenLimit from the native API with the same key', async () => {
    const server = await started(startGeminiServer({ models: [{ id: 'gemini-2.5-flash', inputTokenLimit: 1_048_576, outputTokenLimit: 65_536 }] }));
    const provider = new OpenAICompatProvider({ model: 'gemini-2.5-flash', apiKey: 'AIza-k', baseUrl: `${server.url}/v1beta/openai/`, spec: spec('gemini'), name: 'gemini' });
    expect(await provider.modelLimits!({})).toEqual({ provider: 'gemini', model: 'gemini-2.5-flash', contextWindow: 1_048_576, maxOutput: 65_536 });
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/v1beta/models/gemini-2.5-flash' });
    expect(server.requests[0].headers['x-goog-api-key']).toBe('AIza-k');
  });

  it("Google's 404 and 403 bodies become ProviderErrors", async () => {
    const server = await started(startGeminiServer());
    const provider = new OpenAICompatProvider({ model: 'gemini-9', apiKey: 'AIza-k', baseUrl: `${server.url}/v1beta/openai/`, spec: spec('gemini'), name: 'gemini' });
    const missing = await provider.modelLimits!({}).catch((e: unknown) => e);
    expect(missing).toMatchObject({ kind: 'not_found', status: 404 });
    expect((missing as Error).message).toContain('is not found for API version v1beta');
    const keyless = new OpenAICompatProvider({ model: 'gemini-2.5-flash', baseUrl: `${server.url}/v1beta/openai/`, spec: spec('gemini'), name: 'gemini' });
    await expect(keyless.modelLimits!({})).rejects.toMatchObject({ kind: 'auth', status: 403 });
  });
});

describe('the other vendors that list limits on /models (documented fields, plain local server)', () => {
  it.each([
    ['mistral', { id: 'mistral-large-latest', object: 'model', max_context_length: 131_072 }, { contextWindow: 131_072 }],
    ['groq', { id: 'llama-3.3-70b-versatile', object: 'model', context_window: 131_072, max_completion_tokens: 32_768 }, { contextWindow: 131_072, maxOutput: 32_768 }],
    ['vllm', { id: 'Qwen/Qwen3-8B', object: 'model', max_model_len: 40_960 }, { contextWindow: 40_960 }],
  ])('%s', async (name, entry, expected) => {
    const server = await started(new WireServer().start());
    server.enqueue(replyJson(200, { object: 'list', data: [{ id: 'other', object: 'model' }, entry] }));
    const provider = new OpenAICompatProvider({ model: entry.id, apiKey: 'k', baseUrl: `${server.url}/v1`, spec: spec(name), name });
    expect(await provider.modelLimits!({})).toEqual({ provider: name, model: entry.id, ...expected });
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/v1/models' });
  });

  it('a list without "data", or not JSON, rejects with a ProviderError', async () => {
    const server = await started(new WireServer().start());
    const provider = new OpenAICompatProvider({ model: 'm', apiKey: 'k', baseUrl: `${server.url}/v1`, spec: spec('vllm'), name: 'vllm' });
    server.enqueue(replyJson(200, { models: [] }));
    await expect(provider.modelLimits!({})).rejects.toBeInstanceOf(ProviderError);
    server.enqueue((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data": [');
    });
    await expect(provider.modelLimits!({})).rejects.toBeInstanceOf(ProviderError);
  });
});

describe('FallbackProvider passes counts and limits through', () => {
  it('countTokens goes to the candidate answering now, with its model; modelLimits to the primary', async () => {
    const server = await started(startAnthropicServer({ models: [{ id: 'claude-haiku-4-5', maxInputTokens: 200_000, maxTokens: 64_000 }] }));
    const primary = new AnthropicProvider({ model: 'claude-haiku-4-5', apiKey: 'k', baseUrl: server.url });
    const backup = new OpenAICompatProvider({ model: 'gpt-4.1', apiKey: 'k', baseUrl: 'http://127.0.0.1:9/v1' });
    let now = 0;
    const fallback = new FallbackProvider([primary, backup], { circuitBreaker: { failureThreshold: 1, cooldownMs: 1000, now: () => now } });
    const counted = await fallback.countTokens!({ messages: [{ role: 'user', content: 'Hello' }] });
    expect(counted).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(typeof counted.inputTokens).toBe('number');
    expect(server.requests.at(-1)?.path).toBe('/v1/messages/count_tokens');
    expect(await fallback.modelLimits!({})).toEqual({ provider: 'anthropic', model: 'claude-haiku-4-5', contextWindow: 200_000, maxOutput: 64_000 });

    // The primary fails once (threshold 1): its circuit opens and the backup, which has no count endpoint, answers now.
    server.enqueue((_req, res) => {
      res.writeHead(529, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    });
    await fallback.chat({ messages: [{ role: 'user', content: 'Hi' }], maxAttempts: 1 }).catch(() => undefined);
    expect(fallback.primaryCircuitOpen).toBe(true);
    await expect(fallback.countTokens!({ messages: [{ role: 'user', content: 'Hello' }] })).rejects.toMatchObject({ kind: 'not_found' });
    now = 5000;
    expect(fallback.primaryCircuitOpen).toBe(false);
  });

  it('without a count or limits on the primary, the fallback has neither', () => {
    const plain = new OpenAICompatProvider({ model: 'gpt-4.1', apiKey: 'k' });
    const fallback = new FallbackProvider([plain]);
    expect(fallback.countTokens).toBeUndefined();
    expect(fallback.modelLimits).toBeUndefined();
  });
});
