import { describe, expect, it } from 'vitest';
import { listProviders } from './list-providers.js';
import { PROVIDER_SPECS } from './provider-specs.js';

describe('listProviders', () => {
  it('lists all 46 specs with the variable each reads and its base URL; nothing configured, nothing chosen', () => {
    const { providers, chosen, problem } = listProviders({ env: {} });
    expect(providers.map((p) => p.name)).toEqual(PROVIDER_SPECS.map((s) => s.name));
    expect(providers.find((p) => p.name === 'deepseek')).toEqual({ name: 'deepseek', displayName: 'DeepSeek', backend: 'openai_compat', kind: 'standard', envKey: 'DEEPSEEK_API_KEY', baseUrl: 'https://api.deepseek.com', defaultModel: 'deepseek-v4-flash' });
    expect(providers.find((p) => p.name === 'ollama')).toMatchObject({ kind: 'local', baseUrl: 'http://localhost:11434/v1' });
    // Six gateways name OPENAI_API_KEY in the reference; it never configures them here.
    expect(providers.find((p) => p.name === 'aihubmix')?.envKey).toBeUndefined();
    expect(providers.find((p) => p.name === 'github_copilot')?.refused).toContain('OAuth');
    expect(providers.every((p) => p.configuredBy === undefined)).toBe(true);
    expect(chosen).toBeUndefined();
    expect(problem).toBeUndefined();
  });

  it('marks what configures each provider and says what a run would choose', () => {
    const overview = listProviders({
      env: { DEEPSEEK_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
      providers: { openrouter: { apiKey: 'sk-or-1' }, corp: { apiBase: 'https://llm.corp.example/v1', displayName: 'Corp LLM' } },
    });
    const by = Object.fromEntries(overview.providers.filter((p) => p.configuredBy).map((p) => [p.name, p.configuredBy]));
    expect(by).toEqual({ deepseek: 'DEEPSEEK_API_KEY', openai: 'OPENAI_BASE_URL', openrouter: 'config providers.openrouter', corp: 'config providers.corp' });
    expect(overview.providers.find((p) => p.name === 'openai')?.baseUrl).toBe('http://127.0.0.1:9/v1');
    expect(overview.providers.at(-1)).toMatchObject({ name: 'corp', displayName: 'Corp LLM', kind: 'custom', baseUrl: 'https://llm.corp.example/v1' });
    // Gateways come first in the fallback, as in the reference.
    expect(overview.chosen).toEqual({ provider: 'openrouter', model: 'openrouter/auto', rule: 'fallback' });
    expect(listProviders({ model: 'deepseek-chat', env: { DEEPSEEK_API_KEY: 'k' } }).chosen).toEqual({ provider: 'deepseek', model: 'deepseek-chat', rule: 'keyword' });
  });

  it('a broken choice is reported, a malformed providers section throws naming the field', () => {
    expect(listProviders({ provider: 'nope', env: {} }).problem).toContain('Unknown provider "nope"');
    expect(() => listProviders({ providers: { deepseek: { apikey: 'x' } }, env: {} })).toThrow(expect.objectContaining({ field: 'providers.deepseek.apikey' }));
  });
});
