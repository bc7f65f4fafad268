/** Which tokenizer counts a model's tokens: a tiktoken encoding, or Claude's (estimated). */
export type TokenizerName = 'cl100k_base' | 'o200k_base' | 'claude';

/** Prices in USD per million tokens. */
export interface ModelPrices {
  input: number;
  /** Cache reads (default: `input`, i.e. no discount known). */
  cachedInput?: number;
  /** Cache writes (default: `input`). */
  cacheWrite?: number;
  output: number;
}

/** What is known of one model family. */
export interface ModelInfo {
  /** The family's canonical name. */
  id: string;
  /** Matched against the model name a request uses. */
  pattern: RegExp;
  contextWindow: number;
  maxOutput: number;
  tokenizer: TokenizerName;
  prices?: ModelPrices;
}
