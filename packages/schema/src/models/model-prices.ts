import type { ModelPrices } from './model-info.js';

/**
 * List prices of the known models, by the `id` of their entry in `KNOWN_MODEL_LIMITS`: USD per
 * million tokens, as listed when this table was written, absent where unsure; override them with
 * `lookupModel(name, { overrides })` when yours differ. `cacheWrite` is Anthropic's 5-minute
 * cache write; OpenAI has none.
 */
export const KNOWN_MODEL_PRICES: Readonly<Record<string, ModelPrices>> = {
  'gpt-5.5-pro': { input: 30, output: 180 },
  'gpt-5.5': { input: 5, cachedInput: 0.5, output: 30 },
  'gpt-5.4-mini': { input: 0.75, cachedInput: 0.075, output: 4.5 },
  'gpt-5.4-nano': { input: 0.2, cachedInput: 0.02, output: 1.25 },
  'gpt-5.4': { input: 2.5, cachedInput: 0.25, output: 15 },
  'gpt-5.2': { input: 1.75, cachedInput: 0.175, output: 14 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  'o3-mini': { input: 1.1, cachedInput: 0.55, output: 4.4 },
  'o3': { input: 2, cachedInput: 0.5, output: 8 },
  'o1': { input: 15, cachedInput: 7.5, output: 60 },
  'gpt-4-turbo': { input: 10, output: 30 },
  'gpt-4': { input: 30, output: 60 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
  'claude-fable-5': { input: 10, cachedInput: 1, cacheWrite: 12.5, output: 50 },
  'claude-opus-5-5': { input: 4, cachedInput: 0.4, cacheWrite: 5, output: 20 },
  'claude-opus-5': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-opus-4-6': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-opus-4-5': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-opus-4': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
  'claude-sonnet-4-6': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-sonnet': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-haiku-3-5': { input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4 },
  'claude-haiku-3': { input: 0.25, cachedInput: 0.03, cacheWrite: 0.3, output: 1.25 },
  'claude-haiku': { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 },
  'gemini-3-pro': { input: 2, output: 12 },
  'gemini-3-flash': { input: 0.5, output: 3 },
  'gemini-2.5-pro': { input: 1.25, output: 10 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
};
