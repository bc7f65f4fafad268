import type { ModelInfo } from './model-info.js';

/**
 * The known models' limits: one entry per family, matched by `pattern` against the model name
 * (first match wins, so more specific patterns come first). Windows and reply limits are the
 * providers' published figures (their model pages, checked when this table was last updated);
 * where a provider publishes none the figure is a conservative one (a window too small wastes
 * room, one too large overflows). Providers that publish limits on a models endpoint
 * (Anthropic, OpenRouter, Gemini, Mistral, Groq, vLLM) are read live by `ModelFactsCache` of
 * @nanobot/providers; this table is its fallback. Claude patterns also match gateway and Bedrock
 * ids (`anthropic/claude-opus-4.7`, `us.anthropic.claude-opus-4-7-v1:0`). Prices are apart
 * (model-prices.ts): what only sizes a request (`govern`) does not carry them; `KNOWN_MODELS`
 * joins both.
 */
export const KNOWN_MODEL_LIMITS: readonly ModelInfo[] = [
  // OpenAI (developers.openai.com model pages). Newest first: `gpt-5` would match them all.
  { id: 'gpt-5.5-pro', pattern: /^(openai\/)?gpt-5\.5-pro/i, contextWindow: 1_050_000, maxOutput: 128_000, tokenizer: 'o200k_base' },
  { id: 'gpt-5.5', pattern: /^(openai\/)?gpt-5\.5/i, contextWindow: 1_050_000, maxOutput: 128_000, tokenizer: 'o200k_base' },
  { id: 'gpt-5.4-mini', pattern: /^(openai\/)?gpt-5\.4-mini/i, contextWindow: 400_000, maxOutput: 128_000, tokenizer: 'o200k_base' },
  { id: 'gpt-5.4-nano', pattern: /^(openai\/)?gpt-5\.4-nano/i, contextWindow: 400_000, maxOutput: 128_000, tokenizer: 'o200k_base' },
  { id: 'gpt-5.4', pattern: /^(openai\/)?gpt-5\.4/i, contextWindow: 1_050_000, maxOutput: 128_000, tokenizer: 'o200k_base' },
  { id: 'gpt-5.2', pattern: /^(openai\/)?gpt-5\.2/i, contextWindow: 400_000, maxOutput: 128_000, tokenizer: 'o200k_base' },
  { id: 'gpt-5-mini', pattern: /^(openai\/)?gpt-5(\.[01])?-mini/i, contextWindow: 400_000, maxOutput: 128_000, tokenizer: 'o200k_base' },
  { id: 'gpt-5-nano', pattern: /^(openai\/)?gpt-5(\.[01])?-nano/i, contextWindow: 400_000, maxOutput: 128_000, tokenizer: 'o200k_base' },
  { id: 'gpt-5', pattern: /^(openai\/)?gpt-5/i, contextWindow: 400_000, maxOutput: 128_000, tokenizer: 'o200k_base' },
  { id: 'gpt-4.1-nano', pattern: /^(openai\/)?gpt-4\.1-nano/i, contextWindow: 1_047_576, maxOutput: 32_768, tokenizer: 'o200k_base' },
  { id: 'gpt-4.1-mini', pattern: /^(openai\/)?gpt-4\.1-mini/i, contextWindow: 1_047_576, maxOutput: 32_768, tokenizer: 'o200k_base' },
  { id: 'gpt-4.1', pattern: /^(openai\/)?gpt-4\.1/i, contextWindow: 1_047_576, maxOutput: 32_768, tokenizer: 'o200k_base' },
  { id: 'gpt-4o-mini', pattern: /^(openai\/)?gpt-4o-mini/i, contextWindow: 128_000, maxOutput: 16_384, tokenizer: 'o200k_base' },
  { id: 'gpt-4o', pattern: /^(openai\/)?(gpt-4o|chatgpt-4o)/i, contextWindow: 128_000, maxOutput: 16_384, tokenizer: 'o200k_base' },
  { id: 'o4-mini', pattern: /^(openai\/)?o4-mini/i, contextWindow: 200_000, maxOutput: 100_000, tokenizer: 'o200k_base' },
  { id: 'o3-mini', pattern: /^(openai\/)?o3-mini/i, contextWindow: 200_000, maxOutput: 100_000, tokenizer: 'o200k_base' },
  { id: 'o3', pattern: /^(openai\/)?o3/i, contextWindow: 200_000, maxOutput: 100_000, tokenizer: 'o200k_base' },
  { id: 'o1', pattern: /^(openai\/)?o1/i, contextWindow: 200_000, maxOutput: 100_000, tokenizer: 'o200k_base' },
  { id: 'gpt-4-turbo', pattern: /^(openai\/)?gpt-4-turbo/i, contextWindow: 128_000, maxOutput: 4_096, tokenizer: 'cl100k_base' },
  { id: 'gpt-4', pattern: /^(openai\/)?gpt-4(-\d{4})?$/i, contextWindow: 8_192, maxOutput: 8_192, tokenizer: 'cl100k_base' },
  { id: 'gpt-3.5-turbo', pattern: /^(openai\/)?gpt-3\.5-turbo/i, contextWindow: 16_385, maxOutput: 4_096, tokenizer: 'cl100k_base' },
  // Anthropic (platform.claude.com model pages).
  { id: 'claude-fable-5', pattern: /(^|[/.])claude-fable-5/i, contextWindow: 1_000_000, maxOutput: 128_000, tokenizer: 'claude' },
  { id: 'claude-opus-5-5', pattern: /(^|[/.])claude-opus-5[-.]5/i, contextWindow: 1_000_000, maxOutput: 128_000, tokenizer: 'claude' },
  { id: 'claude-opus-5', pattern: /(^|[/.])claude-opus-5/i, contextWindow: 1_000_000, maxOutput: 128_000, tokenizer: 'claude' },
  { id: 'claude-sonnet-5', pattern: /(^|[/.])claude-sonnet-5/i, contextWindow: 1_000_000, maxOutput: 128_000, tokenizer: 'claude' },
  { id: 'claude-opus-4-6', pattern: /(^|[/.])claude-opus-4[-.][6-9]/i, contextWindow: 1_000_000, maxOutput: 128_000, tokenizer: 'claude' },
  { id: 'claude-opus-4-5', pattern: /(^|[/.])claude-opus-4[-.]5/i, contextWindow: 200_000, maxOutput: 64_000, tokenizer: 'claude' },
  { id: 'claude-opus-4', pattern: /(^|[/.])claude-(opus-4|4-opus)/i, contextWindow: 200_000, maxOutput: 32_000, tokenizer: 'claude' },
  { id: 'claude-sonnet-4-6', pattern: /(^|[/.])claude-sonnet-4[-.][6-9]/i, contextWindow: 1_000_000, maxOutput: 64_000, tokenizer: 'claude' },
  { id: 'claude-sonnet', pattern: /(^|[/.])claude-(sonnet|\d[-.]?\d?-?sonnet)/i, contextWindow: 200_000, maxOutput: 64_000, tokenizer: 'claude' },
  { id: 'claude-haiku-3-5', pattern: /(^|[/.])claude-(3[-.]5-haiku|haiku-3[-.]5)/i, contextWindow: 200_000, maxOutput: 8_192, tokenizer: 'claude' },
  { id: 'claude-haiku-3', pattern: /(^|[/.])claude-(3-haiku|haiku-3)/i, contextWindow: 200_000, maxOutput: 4_096, tokenizer: 'claude' },
  { id: 'claude-haiku', pattern: /(^|[/.])claude-(haiku|\d[-.]?\d?-?haiku)/i, contextWindow: 200_000, maxOutput: 64_000, tokenizer: 'claude' },
  { id: 'claude-opus', pattern: /(^|[/.])claude-(opus|\d[-.]?\d?-?opus)/i, contextWindow: 200_000, maxOutput: 32_000, tokenizer: 'claude' },
  // Google Gemini (ai.google.dev model pages: input / output token limits).
  { id: 'gemini-3-pro', pattern: /^((google|models)\/)?gemini-3(\.\d+)?-pro/i, contextWindow: 1_048_576, maxOutput: 65_536, tokenizer: 'cl100k_base' },
  { id: 'gemini-3-flash', pattern: /^((google|models)\/)?gemini-3-flash(?!-lite)/i, contextWindow: 1_048_576, maxOutput: 65_536, tokenizer: 'cl100k_base' },
  { id: 'gemini-3', pattern: /^((google|models)\/)?gemini-3/i, contextWindow: 1_048_576, maxOutput: 65_536, tokenizer: 'cl100k_base' },
  { id: 'gemini-2.5-pro', pattern: /^((google|models)\/)?gemini-2\.5-pro/i, contextWindow: 1_048_576, maxOutput: 65_536, tokenizer: 'cl100k_base' },
  { id: 'gemini-2.5-flash-lite', pattern: /^((google|models)\/)?gemini-2\.5-flash-lite/i, contextWindow: 1_048_576, maxOutput: 65_536, tokenizer: 'cl100k_base' },
  { id: 'gemini-2.5-flash', pattern: /^((google|models)\/)?gemini-2\.5-flash/i, contextWindow: 1_048_576, maxOutput: 65_536, tokenizer: 'cl100k_base' },
  { id: 'gemini-2.0-flash', pattern: /^((google|models)\/)?gemini-2\.0-flash/i, contextWindow: 1_048_576, maxOutput: 8_192, tokenizer: 'cl100k_base' },
  // DeepSeek: V4 serves 1M in, 384K out; deepseek-chat / deepseek-reasoner are its older names (128K).
  { id: 'deepseek-v4', pattern: /^(deepseek\/)?deepseek-v4/i, contextWindow: 1_048_576, maxOutput: 384_000, tokenizer: 'cl100k_base' },
  { id: 'deepseek-chat', pattern: /^(deepseek\/)?deepseek-(chat|reasoner|v3)/i, contextWindow: 131_072, maxOutput: 8_192, tokenizer: 'cl100k_base' },
  // Moonshot Kimi (platform.kimi.ai): K3 1M, K2.x 256K; replies unpublished, kept conservative.
  { id: 'kimi-k3', pattern: /^((moonshotai|moonshot)\/)?kimi-k3/i, contextWindow: 1_048_576, maxOutput: 32_768, tokenizer: 'cl100k_base' },
  { id: 'kimi-k2', pattern: /^((moonshotai|moonshot)\/)?kimi-k2/i, contextWindow: 262_144, maxOutput: 32_768, tokenizer: 'cl100k_base' },
  // Mistral (docs.mistral.ai): Medium 3.5 256K; the others kept at 128K.
  { id: 'mistral-medium-3.5', pattern: /^(mistral\/)?mistral-medium-(3[-.]5|latest)/i, contextWindow: 262_144, maxOutput: 32_768, tokenizer: 'cl100k_base' },
  { id: 'codestral', pattern: /^(mistral\/)?(codestral|devstral)/i, contextWindow: 262_144, maxOutput: 32_768, tokenizer: 'cl100k_base' },
  { id: 'mistral', pattern: /^(mistral\/|mistralai\/)?(mistral|magistral|ministral|pixtral)-/i, contextWindow: 131_072, maxOutput: 32_768, tokenizer: 'cl100k_base' },
  // Qwen, Zhipu GLM, MiniMax: conservative windows (the providers publish none on an endpoint).
  { id: 'qwen3', pattern: /^(qwen\/)?qwen3/i, contextWindow: 262_144, maxOutput: 32_768, tokenizer: 'cl100k_base' },
  { id: 'glm', pattern: /^((z-ai|zai|zhipuai)\/)?glm-/i, contextWindow: 131_072, maxOutput: 32_768, tokenizer: 'cl100k_base' },
  { id: 'minimax-m2', pattern: /^(minimax\/)?minimax-m2/i, contextWindow: 196_608, maxOutput: 32_768, tokenizer: 'cl100k_base' },
  // OpenRouter's router: the window depends on the model it picks; the smallest common one.
  { id: 'openrouter-auto', pattern: /^openrouter\/auto$/i, contextWindow: 128_000, maxOutput: 16_384, tokenizer: 'cl100k_base' },
];
