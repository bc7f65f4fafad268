import { createEstimator, lookupModelLimits, ValidationError, type ModelInfo, type TokenEstimator, type TokenizerName } from '@nanobot/schema';

/** The options that say which model a request is for and how its tokens are counted. */
export interface ModelOptions {
  /**
   * The model the request goes to (e.g. `'gpt-4o'`, `'anthropic/claude-sonnet-4-5'`). When the
   * model table knows it, its context window, reply size and tokenizer are used where
   * `contextWindowTokens`, `maxOutputTokens` / `providerMaxTokens` and `tokenizer` are not
   * set. An unknown model changes nothing.
   */
  model?: string | null;
  /** Your own model entries, checked before the built-in table (see `lookupModel`). */
  models?: readonly ModelInfo[] | null;
  /**
   * How tokens are counted: `'o200k_base'` (gpt-4o/4.1/5, o-series), `'cl100k_base'` (older
   * OpenAI models; the default), `'claude'` (estimated: Claude's tokenizer is not public).
   * Ignored with `compat: 'reference'`, which counts as the reference does.
   */
  tokenizer?: TokenizerName | null;
  /**
   * Counts prompts instead of the built-in choice (e.g. `createEstimator(...)` from
   * @nanobot/schema, or a calibrated one). Called synchronously; must not mutate its input;
   * a throw propagates. Wins over `tokenizer` and `compat`.
   */
  estimator?: TokenEstimator | null;
  contextWindowTokens?: number | null;
  maxOutputTokens?: number | null;
  providerMaxTokens?: number | null;
  compat?: 'fixed' | 'reference';
}

const TOKENIZERS: readonly string[] = ['cl100k_base', 'o200k_base', 'claude'];

/** Throws {@link ValidationError} for a `model`, `models` or `tokenizer` of the wrong type. */
export function checkModelOptions(o: Record<string, unknown>, where = 'govern'): void {
  if (o.model !== undefined && o.model !== null && typeof o.model !== 'string') {
    throw new ValidationError(`${where}: options.model must be a string, got ${JSON.stringify(o.model) ?? typeof o.model}`, ['model']);
  }
  const models = o.models;
  if (models !== undefined && models !== null) {
    const bad = !Array.isArray(models) || models.some((m: unknown) => m === null || typeof m !== 'object' || !((m as { pattern?: unknown }).pattern instanceof RegExp));
    if (bad) throw new ValidationError(`${where}: options.models must be an array of model entries (each with a RegExp pattern)`, ['models']);
  }
  const est = o.estimator as { promptTokens?: unknown; messageTokens?: unknown } | null | undefined;
  if (est !== undefined && est !== null && (typeof est !== 'object' || typeof est.promptTokens !== 'function' || typeof est.messageTokens !== 'function')) {
    throw new ValidationError(`${where}: options.estimator must have promptTokens() and messageTokens()`, ['estimator']);
  }
  if (o.tokenizer !== undefined && o.tokenizer !== null && !TOKENIZERS.includes(o.tokenizer as string)) {
    throw new ValidationError(`${where}: options.tokenizer must be one of ${TOKENIZERS.join(', ')}, got ${JSON.stringify(o.tokenizer)}`, ['tokenizer']);
  }
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * `options` with the window, reply size and tokenizer of `options.model` filled in where they
 * are not set (the same object when there is nothing to fill: no model, or an unknown one).
 * The reply size counts as set when `maxOutputTokens` or `providerMaxTokens` is. Pure.
 */
export function withModelDefaults<T extends ModelOptions>(options: T): T {
  if (typeof options.model !== 'string' || options.model.length === 0) return options;
  const info = lookupModelLimits(options.model, options.models ? { overrides: options.models } : {});
  if (info === undefined) return options;
  const out: T = { ...options };
  // The table's reply size only comes with its window: next to a window the caller chose
  // (often far below the model's), the model's maximum reply (64k for Claude) would leave no
  // room for the history, while the request itself asks for a provider default (4096).
  if (options.contextWindowTokens === undefined || options.contextWindowTokens === null) {
    out.contextWindowTokens = info.contextWindow;
    if (!isNumber(options.maxOutputTokens) && !isNumber(options.providerMaxTokens)) out.maxOutputTokens = info.maxOutput;
  }
  if (options.tokenizer === undefined || options.tokenizer === null) out.tokenizer = info.tokenizer;
  return out;
}

/** The estimator a governance pass counts with: `estimator`, else the reference's with `compat: 'reference'`, else the provider view in `tokenizer`. */
export function estimatorFor(options: ModelOptions): TokenEstimator {
  if (options.estimator) return options.estimator;
  if (options.compat === 'reference') return createEstimator({ mode: 'reference' });
  return createEstimator({ tokenizer: options.tokenizer ?? 'cl100k_base' });
}
