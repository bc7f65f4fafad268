/**
 * A model's window and largest reply as a run should use them, and where they came from:
 * `provider` (its models endpoint, just now), `cache` (an earlier answer of it, kept in memory or
 * in the facts file), `table` (the built-in model table of @nanobot/schema), `default` (the
 * cache's `fallback`: nothing knew the model), `none` (nothing knows it, and no fallback).
 */
export interface ModelFacts {
  provider: string;
  model: string;
  contextWindow?: number;
  maxOutput?: number;
  source: 'provider' | 'cache' | 'table' | 'default' | 'none';
  /** When the provider's answer was fetched (ms since the epoch; `provider` and `cache` only). */
  fetchedAt?: number;
  /**
   * Why the provider's answer is not what serves, or what went wrong around it: the endpoint
   * failed (timeout, 404, malformed answer), the facts file could not be read or written, a
   * stale answer serves. Absent when all went well.
   */
  problem?: string;
}

/** Anything that answers a model's facts (`ModelFactsCache`; the runner's `modelFacts` option). */
export interface ModelFactsSource {
  /**
   * The facts of `model` (default: the provider's default model). Contract: awaited; never
   * rejects for a failed endpoint or file (the fallback says so in `problem`); `signal` ends the
   * wait early with the fallback.
   */
  lookup(model?: string, options?: { signal?: AbortSignal }): Promise<ModelFacts>;
}

/** One stored answer of a models endpoint: its fields (absent: not published) and when it came. */
export interface StoredModelFacts {
  contextWindow?: number;
  maxOutput?: number;
  /** ms since the epoch. */
  fetchedAt: number;
}

/**
 * Where the answers outlive the process (the CLI's and web demo's file beside the sessions,
 * `JsonModelFactsStore` of @nanobot/runner). Entries are keyed `<provider>|<scope>|<model>`.
 */
export interface ModelFactsStore {
  /** Every stored entry. Awaited; may reject (unreadable, not JSON): the cache says so and fetches. */
  read(): Promise<Record<string, StoredModelFacts>>;
  /** Stores one entry beside the others. Awaited; may reject: the cache says so and goes on. */
  write(key: string, entry: StoredModelFacts): Promise<void>;
}
