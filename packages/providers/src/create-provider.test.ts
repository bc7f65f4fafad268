import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '@nanobot/schema';
import { createProvider, resolveProviderConfig } from './create-provider.js';

describe('resolveProviderConfig / createProvider', () => {
  it('falls back to OPENAI_API_KEY and OPENAI_BASE_URL', () => {
    expect(resolveProviderConfig({ env: { OPENAI_API_KEY: 'sk-o', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' } })).toEqual({ provider: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-o', baseUrl: 'http://127.0.0.1:1/v1' });
  });
  it('picks Anthropic from ANTHROPIC_API_KEY alone, or from a claude model', () => {
    expect(resolveProviderConfig({ env: { ANTHROPIC_API_KEY: 'sk-a' } })).toMatchObject({ provider: 'anthropic', apiKey: 'sk-a' });
    expect(resolveProviderConfig({ model: 'claude-haiku-4-5', env: { OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a' } })).toMatchObject({ provider: 'anthropic', apiKey: 'a' });
  });
  it('a local OpenAI-compatible server needs no key', () => {
    expect(resolveProviderConfig({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2', env: {} })).toMatchObject({ provider: 'openai', apiKey: undefined });
  });
  it('explicit config wins over the environment', () => {
    expect(resolveProviderConfig({ provider: 'openai', apiKey: 'mine', model: 'm', env: { OPENAI_API_KEY: 'env' } })).toMatchObject({ apiKey: 'mine', model: 'm' });
  });
  it('throws a ConfigurationError naming the variables when nothing is configured', () => {
    expect(() => resolveProviderConfig({ env: {} })).toThrow(ConfigurationError);
    expect(() => resolveProviderConfig({ env: {} })).toThrow(/OPENAI_API_KEY.*ANTHROPIC_API_KEY/);
    expect(() => resolveProviderConfig({ provider: 'anthropic', env: {} })).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => resolveProviderConfig({ provider: 'gemini' as never, env: { OPENAI_API_KEY: 'x' } })).toThrow(/Unknown provider/);
  });
  it('builds the chosen provider', async () => {
    const a = await createProvider({ env: { ANTHROPIC_API_KEY: 'sk-a' }, model: 'claude-x' });
    expect([a.name, a.defaultModel]).toEqual(['anthropic', 'claude-x']);
    const o = await createProvider({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(o.name).toBe('openai');
  });
});
