import type { ModelInfo } from './model-info.js';

/**
 * The known models: one entry per family, matched by `pattern` against the model name (first
 * match wins, so more specific patterns come first). Prices are USD per million tokens, list
 * prices when this table was written; override them with `lookupModel(name, { overrides })`
 * when yours differ. `cacheWrite` is Anthropic's 5-minute cache write; OpenAI has none.
 */
export const KNOWN_MODELS: readonly ModelInfo[] = [
  { id: 'gpt-5-mini', pattern: /^(openai\/)?gpt-5(\.\d+)?-mini/i, contextWindow: 400_000, maxOutput: 128_000, tokenizer: 'o200k_base', prices: { input: 0.25, cachedInput: 0.025, output: 2 } },
  { id: 'gpt-5-nano', pattern: /^(openai\/)?gpt-5(\.\d+)?-nano/i, contextWindow: 400_000, maxOutput: 128_000, tokenizer: 'o200k_base', prices: { input: 0.05, cachedInput: 0.005, output: 0.4 } },
  { id: 'gpt-5', pattern: /^(openai\/)?gpt-5/i, contextWindow: 400_000, maxOutput: 128_000, tokenizer: 'o200k_base', prices: { input: 1.25, cachedInput: 0.125, output: 10 } },
  { id: 'gpt-4.1-nano', pattern: /^(openai\/)?gpt-4\.1-nano/i, contextWindow: 1_047_576, maxOutput: 32_768, tokenizer: 'o200k_base', prices: { input: 0.1, cachedInput: 0.025, output: 0.4 } },
  { id: 'gpt-4.1-mini', pattern: /^(openai\/)?gpt-4\.1-mini/i, contextWindow: 1_047_576, maxOutput: 32_768, tokenizer: 'o200k_base', prices: { input: 0.4, cachedInput: 0.1, output: 1.6 } },
  { id: 'gpt-4.1', pattern: /^(openai\/)?gpt-4\.1/i, contextWindow: 1_047_576, maxOutput: 32_768, tokenizer: 'o200k_base', prices: { input: 2, cachedInput: 0.5, output: 8 } },
  { id: 'gpt-4o-mini', pattern: /^(openai\/)?gpt-4o-mini/i, contextWindow: 128_000, maxOutput: 16_384, tokenizer: 'o200k_base', prices: { input: 0.15, cachedInput: 0.075, output: 0.6 } },
  { id: 'gpt-4o', pattern: /^(openai\/)?(gpt-4o|chatgpt-4o)/i, contextWindow: 128_000, maxOutput: 16_384, tokenizer: 'o200k_base', prices: { input: 2.5, cachedInput: 1.25, output: 10 } },
  { id: 'o4-mini', pattern: /^(openai\/)?o4-mini/i, contextWindow: 200_000, maxOutput: 100_000, tokenizer: 'o200k_base', prices: { input: 1.1, cachedInput: 0.275, output: 4.4 } },
  { id: 'o3-mini', pattern: /^(openai\/)?o3-mini/i, contextWindow: 200_000, maxOutput: 100_000, tokenizer: 'o200k_base', prices: { input: 1.1, cachedInput: 0.55, output: 4.4 } },
  { id: 'o3', pattern: /^(openai\/)?o3/i, contextWindow: 200_000, maxOutput: 100_000, tokenizer: 'o200k_base', prices: { input: 2, cachedInput: 0.5, output: 8 } },
  { id: 'o1', pattern: /^(openai\/)?o1/i, contextWindow: 200_000, maxOutput: 100_000, tokenizer: 'o200k_base', prices: { input: 15, cachedInput: 7.5, output: 60 } },
  { id: 'gpt-4-turbo', pattern: /^(openai\/)?gpt-4-turbo/i, contextWindow: 128_000, maxOutput: 4_096, tokenizer: 'cl100k_base', prices: { input: 10, output: 30 } },
  { id: 'gpt-4', pattern: /^(openai\/)?gpt-4(-\d{4})?$/i, contextWindow: 8_192, maxOutput: 8_192, tokenizer: 'cl100k_base', prices: { input: 30, output: 60 } },
  { id: 'gpt-3.5-turbo', pattern: /^(openai\/)?gpt-3\.5-turbo/i, contextWindow: 16_385, maxOutput: 4_096, tokenizer: 'cl100k_base', prices: { input: 0.5, output: 1.5 } },
  { id: 'claude-opus-4', pattern: /^(anthropic\/)?claude-(opus-4-?[01]|4-opus|opus-4-20)/i, contextWindow: 200_000, maxOutput: 32_000, tokenizer: 'claude', prices: { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 } },
  { id: 'claude-opus', pattern: /^(anthropic\/)?claude-(opus|\d[-.]?\d?-?opus)/i, contextWindow: 200_000, maxOutput: 64_000, tokenizer: 'claude', prices: { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25 } },
  { id: 'claude-sonnet', pattern: /^(anthropic\/)?claude-(sonnet|\d[-.]?\d?-?sonnet)/i, contextWindow: 200_000, maxOutput: 64_000, tokenizer: 'claude', prices: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 } },
  { id: 'claude-haiku-3', pattern: /^(anthropic\/)?claude-(3-haiku|haiku-3)/i, contextWindow: 200_000, maxOutput: 4_096, tokenizer: 'claude', prices: { input: 0.25, cachedInput: 0.03, cacheWrite: 0.3, output: 1.25 } },
  { id: 'claude-haiku', pattern: /^(anthropic\/)?claude-(haiku|\d[-.]?\d?-?haiku)/i, contextWindow: 200_000, maxOutput: 64_000, tokenizer: 'claude', prices: { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 } },
];
