import { KNOWN_MODEL_LIMITS } from './model-limits.js';
import type { ModelInfo } from './model-info.js';
import { KNOWN_MODEL_PRICES } from './model-prices.js';

/** The limits entries with their prices (after the other fields, where the table lists any). */
function withPrices(limits: readonly ModelInfo[], prices: Readonly<Record<string, ModelInfo['prices']>>): readonly ModelInfo[] {
  return limits.map((info) => {
    const p = Object.hasOwn(prices, info.id) ? prices[info.id] : undefined;
    return p === undefined ? info : { ...info, prices: p };
  });
}

/**
 * The known models: one entry per family, matched by `pattern` against the model name (first
 * match wins, so more specific patterns come first), with its window, reply limit and tokenizer
 * (`KNOWN_MODEL_LIMITS`, where the sources are noted) and its list prices where known
 * (`KNOWN_MODEL_PRICES`). Providers that publish limits on a models endpoint (Anthropic,
 * OpenRouter, Gemini, Mistral, Groq, vLLM) are read live by `ModelFactsCache` of
 * @nanobot/providers; this table is its fallback. Prices are USD per million tokens, list
 * prices when this table was written, absent where unsure; override them with
 * `lookupModel(name, { overrides })` when yours differ. `cacheWrite` is Anthropic's 5-minute
 * cache write; OpenAI has none. Claude patterns also match gateway and Bedrock ids
 * (`anthropic/claude-opus-4.7`, `us.anthropic.claude-opus-4-7-v1:0`).
 */
export const KNOWN_MODELS: readonly ModelInfo[] = /* @__PURE__ */ withPrices(KNOWN_MODEL_LIMITS, KNOWN_MODEL_PRICES);
