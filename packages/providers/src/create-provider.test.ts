import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '@nanobot/schema';
import { createProvider, resolveProviderConfig } from './create-provider.js';
import type { ProviderConfig } from './create-provider.js';
import { WireServer, replyJson } from './test-support/wire-server.js';
import { message } from './test-support/anthropic-wire.js';
import { completion } from './test-support/openai-wire.js';

describe('resolveProviderConfig / createProvider', () => {
  it('falls back to OPENAI_API_KEY and OPENAI_BASE_URL', () => {
    expect(resolveProviderConfig({ env: { OPENAI_API_KEY: 'sk-o', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' } })).toMatchObject({ provider: 'openai', backend: 'openai_compat', model: 'gpt-5.4-mini', apiKey: 'sk-o', baseUrl: 'http://127.0.0.1:1/v1' });
  });
  it('picks Anthropic from ANTHROPIC_API_KEY alone, or from a claude model', () => {
    expect(resolveProviderConfig({ env: { ANTHROPIC_API_KEY: 'sk-a' } })).toMatchObject({ provider: 'anthropic', apiKey: 'sk-a' });
    expect(resolveProviderConfig({ model: 'claude-haiku-4-5', env: { OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a' } })).toMatchObject({ provider: 'anthropic', apiKey: 'a' });
  });
  it('a local OpenAI-compatible server needs no key (the port names Ollama, LM Studio or Atomic Chat)', () => {
    expect(resolveProviderConfig({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2', env: {} })).toMatchObject({ provider: 'ollama', backend: 'openai_compat', apiKey: undefined });
    expect(resolveProviderConfig({ baseUrl: 'http://127.0.0.1:8080/v1', model: 'llama3.2', env: {} })).toMatchObject({ provider: 'openai', apiKey: undefined, baseUrl: 'http://127.0.0.1:8080/v1' });
    expect(resolveProviderConfig({ model: 'llama3.2', env: { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' } })).toMatchObject({ provider: 'openai', apiKey: undefined });
  });
  it('explicit config wins over the environment', () => {
    expect(resolveProviderConfig({ provider: 'openai', apiKey: 'mine', model: 'm', env: { OPENAI_API_KEY: 'env' } })).toMatchObject({ apiKey: 'mine', model: 'm' });
  });
  it('throws a ConfigurationError naming the variables when nothing is configured', () => {
    expect(() => resolveProviderConfig({ env: {} })).toThrow(ConfigurationError);
    expect(() => resolveProviderConfig({ env: {} })).toThrow(/OPENAI_API_KEY.*ANTHROPIC_API_KEY/);
    expect(() => resolveProviderConfig({ provider: 'anthropic', env: {} })).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => resolveProviderConfig({ provider: 'nonesuch', env: { OPENAI_API_KEY: 'x' } })).toThrow(/Unknown provider "nonesuch"/);
  });
  it('builds the chosen provider', async () => {
    const a = await createProvider({ env: { ANTHROPIC_API_KEY: 'sk-a' }, model: 'claude-x' });
    expect([a.name, a.defaultModel]).toEqual(['anthropic', 'claude-x']);
    const o = await createProvider({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(o.name).toBe('openai');
  });
  it("carries the spec's governor target, for the runner to govern every request for it", async () => {
    expect((await createProvider({ env: { ANTHROPIC_API_KEY: 'sk-a' } })).governorTarget).toBe('anthropic');
    expect((await createProvider({ provider: 'mistral', apiKey: 'k' })).governorTarget).toBe('mistral');
    expect((await createProvider({ provider: 'deepseek', apiKey: 'k' })).governorTarget).toBe('deepseek');
    expect((await createProvider({ provider: 'gemini', apiKey: 'k' })).governorTarget).toBe('gemini');
    expect((await createProvider({ provider: 'openrouter', apiKey: 'k' })).governorTarget).toBe('openrouter');
  });
  it('an anthropic/ model prefix picks Anthropic; each provider reads only its own base URL variable', () => {
    expect(resolveProviderConfig({ model: 'anthropic/claude-x', env: { OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a' } })).toMatchObject({ provider: 'anthropic', apiKey: 'a' });
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', ANTHROPIC_API_KEY: 'a', ANTHROPIC_BASE_URL: 'http://127.0.0.1:2' };
    expect(resolveProviderConfig({ provider: 'anthropic', env })).toMatchObject({ provider: 'anthropic', baseUrl: 'http://127.0.0.1:2' });
    expect(resolveProviderConfig({ provider: 'anthropic', env: { ...env, ANTHROPIC_BASE_URL: undefined } }).baseUrl).toBeUndefined();
    expect(resolveProviderConfig({ provider: 'openai', apiKey: 'k', env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:2' } }).baseUrl).toBeUndefined();
  });
  it('empty strings count as unset, like unset env variables', () => {
    expect(resolveProviderConfig({ model: '', apiKey: '', baseUrl: '', env: { ANTHROPIC_API_KEY: 'a' } })).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-6', apiKey: 'a', baseUrl: undefined });
  });
  it('bad configuration is a ConfigurationError naming the field, before any SDK is loaded', async () => {
    const bad: [unknown, RegExp][] = [
      [{ model: 42, apiKey: 'k' }, /"model" must be a string, got number/],
      [{ apiKey: null }, /"apiKey" must be a string, got null/],
      [{ baseUrl: ['http://x'] }, /"baseUrl" must be a string/],
      [{ baseUrl: 'localhost:11434' }, /baseUrl must be an http\(s\) URL.*localhost:11434/],
      [{ baseUrl: 'ftp://127.0.0.1/v1' }, /baseUrl must be an http\(s\) URL/],
      [{ env: { OPENAI_BASE_URL: '127.0.0.1:11434/v1' } }, /OPENAI_BASE_URL must be an http\(s\) URL/],
      [{ provider: 'anthropic', env: { ANTHROPIC_API_KEY: 'a', ANTHROPIC_BASE_URL: 'nope' } }, /ANTHROPIC_BASE_URL must be an http\(s\) URL/],
    ];
    for (const [config, message] of bad) {
      const frozen = Object.freeze({ env: {}, ...(config as object) }) as ProviderConfig;
      expect(() => resolveProviderConfig(frozen)).toThrow(ConfigurationError);
      expect(() => resolveProviderConfig(frozen)).toThrow(message);
      await expect(createProvider(frozen)).rejects.toThrow(message);
    }
  });
});

describe('createProvider sends with what it was given', () => {
  let server: WireServer;
  beforeEach(async () => {
    server = await new WireServer().start();
  });
  afterEach(async () => {
    await server.stop();
  });

  it('OpenAI-compatible: model, apiKey and baseUrl from the config', async () => {
    server.enqueue(replyJson(200, completion({ role: 'assistant', content: 'hi' })));
    const p = await createProvider({ provider: 'openai', model: 'my-model', apiKey: 'sk-config', baseUrl: `${server.url}/v1`, env: { OPENAI_API_KEY: 'sk-env' } });
    expect((await p.chat({ messages: [{ role: 'user', content: 'x' }] })).content).toBe('hi');
    expect(server.requests[0]).toMatchObject({ url: '/v1/chat/completions', body: { model: 'my-model' } });
    expect(server.requests[0].headers.authorization).toBe('Bearer sk-config');
  });

  it('OpenAI-compatible: OPENAI_API_KEY and OPENAI_BASE_URL from the environment', async () => {
    server.enqueue(replyJson(200, completion({ role: 'assistant', content: 'hi' })));
    const p = await createProvider({ model: 'local', env: { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: `${server.url}/v1` } });
    await p.chat({ messages: [{ role: 'user', content: 'x' }] });
    expect(server.requests[0]).toMatchObject({ url: '/v1/chat/completions', body: { model: 'local' } });
    expect(server.requests[0].headers.authorization).toBe('Bearer sk-env');
  });

  it('Anthropic: model, apiKey and baseUrl from the config, and ANTHROPIC_API_KEY from the environment', async () => {
    server.enqueue(replyJson(200, message([{ type: 'text', text: 'hi' }])), replyJson(200, message([{ type: 'text', text: 'again' }])));
    const configured = await createProvider({ provider: 'anthropic', model: 'claude-x', apiKey: 'sk-ant-config', baseUrl: server.url, env: {} });
    expect((await configured.chat({ messages: [{ role: 'user', content: 'x' }] })).content).toBe('hi');
    const fromEnv = await createProvider({ model: 'claude-y', baseUrl: server.url, env: { ANTHROPIC_API_KEY: 'sk-ant-env' } });
    expect((await fromEnv.chat({ messages: [{ role: 'user', content: 'x' }] })).content).toBe('again');
    expect(server.requests.map((r) => [r.url, (r.body as { model: string }).model, r.headers.authorization])).toEqual([
      ['/v1/messages', 'claude-x', 'Bearer sk-ant-config'],
      ['/v1/messages', 'claude-y', 'Bearer sk-ant-env'],
    ]);
  });
});
