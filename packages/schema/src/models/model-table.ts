import { findModel } from './find-model.js';
import { KNOWN_MODELS } from './known-models.js';
import { KNOWN_MODEL_LIMITS } from './model-limits.js';
import type { Usage } from '../provider/provider.js';
import type { ModelInfo, ModelPrices } from './model-info.js';

/** Options of `lookupModel`. */
export interface LookupModelOptions {
  /** Entries checked before the built-in table (your own models, negotiated prices). */
  overrides?: readonly ModelInfo[];
}

/**
 * What the model table knows of `model` (after stripping a `provider/` prefix that the
 * patterns do not name), or `undefined` for an unknown model. Pure.
 */
export function lookupModel(model: string | undefined, options: LookupModelOptions = {}): ModelInfo | undefined {
  return findModel(model, [options.overrides ?? [], KNOWN_MODELS]);
}

/**
 * {@link lookupModel} for what sizes a request: the entry's window, reply limit and tokenizer
 * are the same, but a built-in entry comes without its prices (an override is returned as
 * given). For code that never prices (`govern`), so a bundle of it leaves the price table out.
 * Pure.
 */
export function lookupModelLimits(model: string | undefined, options: LookupModelOptions = {}): ModelInfo | undefined {
  return findModel(model, [options.overrides ?? [], KNOWN_MODEL_LIMITS]);
}

/** The cost of one request's usage in USD, split the way bills are. */
export interface UsageCost {
  /** Input not read from the cache nor written to it. */
  uncachedInput: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
  total: number;
}

/**
 * What `usage` costs at `prices` (`inputTokens` includes cached and cache-written tokens, see
 * `Usage`). Pure; negative or missing counters count as 0.
 */
export function costOfUsage(usage: Usage, prices: ModelPrices): UsageCost {
  const n = (v: number | undefined): number => (typeof v === 'number' && v > 0 ? v : 0);
  const cached = n(usage.cachedTokens);
  const written = n(usage.cacheCreationTokens);
  const uncached = Math.max(0, n(usage.inputTokens) - cached - written);
  const m = 1_000_000;
  const cost = {
    uncachedInput: (uncached * prices.input) / m,
    cachedInput: (cached * (prices.cachedInput ?? prices.input)) / m,
    cacheWrite: (written * (prices.cacheWrite ?? prices.input)) / m,
    output: (n(usage.outputTokens) * prices.output) / m,
  };
  return { ...cost, total: cost.uncachedInput + cost.cachedInput + cost.cacheWrite + cost.output };
}

/** Adds two costs (per-turn totals from per-request ones). Pure. */
export function addCosts(a: UsageCost, b: UsageCost): UsageCost {
  return {
    uncachedInput: a.uncachedInput + b.uncachedInput,
    cachedInput: a.cachedInput + b.cachedInput,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    output: a.output + b.output,
    total: a.total + b.total,
  };
}
