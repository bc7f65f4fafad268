import { ConfigurationError } from '@nanobot/schema';
import { describe, expect, it } from 'vitest';
import { OFFLINE_CONTEXT_WINDOW, resolveModel } from './resolve-model.js';

describe('resolveModel', () => {
  it('runs the offline scripted model when nothing is configured', async () => {
    const model = await resolveModel({});
    expect(model).toMatchObject({ offline: true, model: 'offline-demo', contextWindowTokens: OFFLINE_CONTEXT_WINDOW });
    expect(model.provider.name).toBe('offline');
  });

  it('uses the real provider the environment names, and NANOBOT_MODEL / NANOBOT_CONTEXT_WINDOW', async () => {
    const openai = await resolveModel({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', NANOBOT_MODEL: 'llama3', NANOBOT_CONTEXT_WINDOW: '32768' });
    expect(openai).toMatchObject({ offline: false, model: 'llama3', contextWindowTokens: 32768 });
    expect(openai.provider.name).toBe('openai');
    const anthropic = await resolveModel({ ANTHROPIC_API_KEY: 'sk-test' });
    expect(anthropic).toMatchObject({ offline: false, contextWindowTokens: 128_000 });
    expect(anthropic.provider.name).toBe('anthropic');
  });

  it('--offline wins over a configured key; a bad window falls back to the default', async () => {
    const model = await resolveModel({ OPENAI_API_KEY: 'sk-test', NANOBOT_CONTEXT_WINDOW: 'lots' }, { offline: true });
    expect(model).toMatchObject({ offline: true, contextWindowTokens: OFFLINE_CONTEXT_WINDOW });
  });

  it('reports a configuration the providers refuse as a ConfigurationError', async () => {
    await expect(resolveModel({ OPENAI_API_KEY: 'sk-test', NANOBOT_MODEL: 'claude-sonnet-4-5' })).rejects.toBeInstanceOf(ConfigurationError);
  });
});
