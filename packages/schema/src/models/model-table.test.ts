import { describe, expect, it } from 'vitest';
import { KNOWN_MODELS } from './known-models.js';
import { KNOWN_MODEL_LIMITS } from './model-limits.js';
import { KNOWN_MODEL_PRICES } from './model-prices.js';
import { addCosts, costOfUsage, lookupModel, lookupModelLimits } from './model-table.js';

describe('lookupModel', () => {
  it.each([
    ['gpt-4o', 'gpt-4o', 'o200k_base'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini', 'o200k_base'],
    ['openai/gpt-4.1-mini', 'gpt-4.1-mini', 'o200k_base'],
    ['gpt-5', 'gpt-5', 'o200k_base'],
    ['gpt-5-mini', 'gpt-5-mini', 'o200k_base'],
    ['o3-mini', 'o3-mini', 'o200k_base'],
    ['o4-mini', 'o4-mini', 'o200k_base'],
    ['gpt-4', 'gpt-4', 'cl100k_base'],
    ['gpt-3.5-turbo-0125', 'gpt-3.5-turbo', 'cl100k_base'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet', 'claude'],
    ['anthropic/claude-3-7-sonnet-latest', 'claude-sonnet', 'claude'],
    ['claude-opus-4-1', 'claude-opus-4', 'claude'],
    ['claude-opus-4-6', 'claude-opus-4-6', 'claude'],
    ['claude-opus-4-7', 'claude-opus-4-6', 'claude'],
    ['anthropic/claude-opus-4.7', 'claude-opus-4-6', 'claude'],
    ['us.anthropic.claude-sonnet-4-6-v1:0', 'claude-sonnet-4-6', 'claude'],
    ['claude-opus-4-5-20251101', 'claude-opus-4-5', 'claude'],
    ['gpt-5.4-mini', 'gpt-5.4-mini', 'o200k_base'],
    ['gpt-5.5', 'gpt-5.5', 'o200k_base'],
    ['openai/gpt-5.4', 'gpt-5.4', 'o200k_base'],
    ['gpt-5.1', 'gpt-5', 'o200k_base'],
    ['gemini-3-flash-preview', 'gemini-3-flash', 'cl100k_base'],
    ['google/gemini-3.1-pro-preview', 'gemini-3-pro', 'cl100k_base'],
    ['gemini-2.5-flash-lite', 'gemini-2.5-flash-lite', 'cl100k_base'],
    ['deepseek-v4-flash', 'deepseek-v4', 'cl100k_base'],
    ['deepseek-chat', 'deepseek-chat', 'cl100k_base'],
    ['moonshotai/kimi-k2.6', 'kimi-k2', 'cl100k_base'],
    ['mistral-large-latest', 'mistral', 'cl100k_base'],
    ['claude-haiku-4-5', 'claude-haiku', 'claude'],
    ['openrouter/anthropic/claude-sonnet-4', 'claude-sonnet', 'claude'],
  ])('%s → %s (%s)', (model, id, tokenizer) => {
    expect(lookupModel(model)).toMatchObject({ id, tokenizer });
  });

  it('the windows and replies the providers publish for the models served today', () => {
    expect(lookupModel('claude-opus-4-7')).toMatchObject({ contextWindow: 1_000_000, maxOutput: 128_000 });
    expect(lookupModel('claude-sonnet-4-6')).toMatchObject({ contextWindow: 1_000_000, maxOutput: 64_000 });
    expect(lookupModel('claude-haiku-4-5')).toMatchObject({ contextWindow: 200_000, maxOutput: 64_000 });
    expect(lookupModel('claude-sonnet-4-5')).toMatchObject({ contextWindow: 200_000, maxOutput: 64_000 });
    expect(lookupModel('gpt-5.4')).toMatchObject({ contextWindow: 1_050_000, maxOutput: 128_000 });
    expect(lookupModel('gemini-2.5-flash')).toMatchObject({ contextWindow: 1_048_576, maxOutput: 65_536 });
    expect(lookupModel('deepseek-v4-pro')).toMatchObject({ contextWindow: 1_048_576, maxOutput: 384_000 });
  });

  it('unknown models are undefined; overrides win', () => {
    expect(lookupModel('llama3.1:8b')).toBeUndefined();
    expect(lookupModel(undefined)).toBeUndefined();
    const mine = { id: 'mine', pattern: /^gpt-4o$/, contextWindow: 1000, maxOutput: 100, tokenizer: 'o200k_base' as const };
    expect(lookupModel('gpt-4o', { overrides: [mine] })).toBe(mine);
  });

  it('every entry is sane: positive window, output below window, prices non-negative', () => {
    for (const m of KNOWN_MODELS) {
      expect(m.contextWindow).toBeGreaterThan(m.maxOutput - 1);
      for (const v of Object.values(m.prices ?? {})) expect(v).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('lookupModelLimits', () => {
  const names = ['gpt-4o', 'openai/gpt-5.5-pro', 'us.anthropic.claude-opus-4-7-v1:0', 'models/gemini-3-flash', 'x/y/kimi-k3', 'mistral/codestral-2', 'deepseek-chat', 'nope', ''];

  it('finds the entry lookupModel finds, with the same fields but no prices', () => {
    for (const name of [...names, ...KNOWN_MODELS.map((m) => m.id)]) {
      const full = lookupModel(name);
      const limits = lookupModelLimits(name);
      if (full === undefined) {
        expect(limits).toBeUndefined();
        continue;
      }
      const { prices, ...rest } = full;
      expect(limits).toEqual(rest);
      expect(Object.keys(limits!)).toEqual(Object.keys(rest));
      expect(limits!.pattern).toBe(full.pattern);
      expect(limits).not.toHaveProperty('prices');
      if (prices !== undefined) expect(prices).toBe(KNOWN_MODEL_PRICES[full.id]);
    }
  });

  it('returns an override as given (prices included), before the table', () => {
    const mine = { id: 'mine', pattern: /^gpt-4o/, contextWindow: 1000, maxOutput: 100, tokenizer: 'cl100k_base' as const, prices: { input: 1, output: 2 } };
    expect(lookupModelLimits('gpt-4o', { overrides: [mine] })).toBe(mine);
  });

  it('KNOWN_MODELS is the limits table, entry by entry, with prices where listed', () => {
    expect(KNOWN_MODELS.map(({ prices: _prices, ...rest }) => rest)).toEqual(KNOWN_MODEL_LIMITS);
    // A price under an id the limits table does not have would be silently unused.
    expect(Object.keys(KNOWN_MODEL_PRICES).filter((id) => !KNOWN_MODEL_LIMITS.some((m) => m.id === id))).toEqual([]);
    expect(KNOWN_MODELS.filter((m) => m.prices !== undefined).length).toBe(Object.keys(KNOWN_MODEL_PRICES).length);
  });
});

describe('costOfUsage', () => {
  it('splits input into uncached, cache reads and cache writes (Anthropic prices)', () => {
    const prices = lookupModel('claude-sonnet-4-5')!.prices!;
    const cost = costOfUsage({ inputTokens: 1_000_000, cachedTokens: 600_000, cacheCreationTokens: 100_000, outputTokens: 10_000 }, prices);
    expect(cost.uncachedInput).toBeCloseTo(0.9, 10);
    expect(cost.cachedInput).toBeCloseTo(0.18, 10);
    expect(cost.cacheWrite).toBeCloseTo(0.375, 10);
    expect(cost.output).toBeCloseTo(0.15, 10);
    expect(cost.total).toBeCloseTo(1.605, 10);
  });

  it('treats missing discounts as full price and never goes negative', () => {
    const cost = costOfUsage({ inputTokens: 10, cachedTokens: 50, outputTokens: -3 }, { input: 1, output: 2 });
    expect(cost).toEqual({ uncachedInput: 0, cachedInput: 50 / 1e6, cacheWrite: 0, output: 0, total: 50 / 1e6 });
  });

  it('addCosts sums field by field', () => {
    const a = costOfUsage({ inputTokens: 100, outputTokens: 10 }, { input: 1, output: 1 });
    expect(addCosts(a, a).total).toBeCloseTo(2 * a.total, 12);
  });
});
