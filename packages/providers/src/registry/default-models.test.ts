import { lookupModel } from '@nanobot/schema';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODELS } from './default-models.js';
import { findProviderSpec } from './find-provider-spec.js';
import { resolveProviderConfig } from './resolve-provider-config.js';

describe('DEFAULT_MODELS', () => {
  it.each(Object.entries(DEFAULT_MODELS))('%s → %s is a model the model table knows (its window and reply are not guesses)', (provider, model) => {
    const info = lookupModel(model);
    expect(info, `${model} is not in the model table`).toBeDefined();
    expect(info!.contextWindow).toBeGreaterThan(info!.maxOutput);
    if (provider !== 'openai_responses') expect(findProviderSpec(provider), `${provider} is not a registry name`).toBeDefined();
  });

  it('is what a provider configured without a model runs', () => {
    expect(resolveProviderConfig({ env: { DEEPSEEK_API_KEY: 'k' } })).toMatchObject({ provider: 'deepseek', model: 'deepseek-v4-flash' });
    expect(resolveProviderConfig({ env: { ANTHROPIC_API_KEY: 'k' } })).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-6' });
    expect(resolveProviderConfig({ env: { GEMINI_API_KEY: 'k' } })).toMatchObject({ provider: 'gemini', model: 'gemini-3-flash-preview' });
    expect(resolveProviderConfig({ provider: 'openai-responses', env: { OPENAI_API_KEY: 'k' } })).toMatchObject({ backend: 'openai_responses', model: 'gpt-5.4-mini' });
  });
});
