import { lookupModel } from '@nanobot/schema';
import type { LLMProvider, ModelInfo, ModelLimits } from '@nanobot/schema';
import type { ModelFacts, ModelFactsSource, ModelFactsStore, StoredModelFacts } from './model-facts.js';

/** How long an endpoint's answer is trusted before it is asked again (a day). */
export const MODEL_FACTS_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a failed lookup's fallback is kept in memory before the endpoint is tried again. */
export const MODEL_FACTS_RETRY_MS = 5 * 60 * 1000;
/** Longest wait for a models endpoint. */
export const MODEL_FACTS_TIMEOUT_MS = 10_000;

/** Options of `ModelFactsCache`. */
export interface ModelFactsCacheOptions {
  /** Asked through its `modelLimits` (a provider without one gets the table's facts). */
  provider: Pick<LLMProvider, 'name' | 'defaultModel' | 'modelLimits'>;
  /** Tells endpoints with the same provider name apart in the store (e.g. the base URL). */
  scope?: string;
  /** Where answers outlive the process; none: memory only. */
  store?: ModelFactsStore | null;
  /** How long an answer is trusted (default a day). */
  ttlMs?: number;
  /** How long a failure's fallback is kept before the endpoint is tried again (default 5 min). */
  retryMs?: number;
  /** Longest wait for the endpoint (default 10 s); a slower answer is abandoned. */
  timeoutMs?: number;
  /** Your own model entries, checked before the built-in table (`lookupModel`'s overrides). */
  models?: readonly ModelInfo[];
  /**
   * What serves when neither the provider nor the model table knows the model (a local model,
   * a house name): `source: 'default'`. Absent: `source: 'none'` without figures.
   */
  fallback?: { contextWindow: number; maxOutput?: number };
  /** The clock (tests). */
  now?: () => number;
}

interface Remembered {
  facts: ModelFacts;
  until: number;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** A stored entry checked (a hand-edited or truncated file must not size a budget). */
function checkedEntry(value: unknown): StoredModelFacts | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const raw = value as Record<string, unknown>;
  if (typeof raw.fetchedAt !== 'number' || !Number.isFinite(raw.fetchedAt)) return undefined;
  const entry: StoredModelFacts = { fetchedAt: raw.fetchedAt };
  const window = positive(raw.contextWindow);
  const output = positive(raw.maxOutput);
  if (window !== undefined) entry.contextWindow = window;
  if (output !== undefined) entry.maxOutput = output;
  return entry;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function ageText(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 90) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
}

/**
 * A model's window and largest reply from its provider's models endpoint, kept in memory and in
 * a store (a file beside the sessions) with the time they were fetched and asked again after
 * `ttlMs`; falling back to a stale answer, then to the built-in model table, when the endpoint
 * fails, times out or answers nonsense — never failing, always saying why in `problem`. Where
 * the endpoint gives only one of the two figures the table fills the other. Concurrent lookups
 * of one model share one request.
 */
export class ModelFactsCache implements ModelFactsSource {
  readonly #options: ModelFactsCacheOptions;
  readonly #memory = new Map<string, Remembered>();
  readonly #inflight = new Map<string, Promise<ModelFacts>>();

  constructor(options: ModelFactsCacheOptions) {
    this.#options = options;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  #key(model: string): string {
    return `${this.#options.provider.name}|${this.#options.scope ?? ''}|${model}`;
  }

  /** The facts of `model`; see `ModelFactsSource.lookup`. Never rejects. */
  async lookup(model?: string, options: { signal?: AbortSignal } = {}): Promise<ModelFacts> {
    const name = model ?? this.#options.provider.defaultModel;
    const key = this.#key(name);
    const remembered = this.#memory.get(key);
    if (remembered && this.#now() < remembered.until) return remembered.facts;
    const running = this.#inflight.get(key);
    if (running) return running;
    const started = this.#resolve(key, name, options.signal).finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, started);
    return started;
  }

  /** Forgets what memory holds (the store keeps its entries). */
  clear(): void {
    this.#memory.clear();
  }

  /** The table's facts of `model`, with what went wrong before falling back to it. */
  #fromTable(model: string, problems: string[]): ModelFacts {
    const info = lookupModel(model, this.#options.models ? { overrides: this.#options.models } : {});
    const fallback = this.#options.fallback;
    const known = info ?? fallback;
    const facts: ModelFacts = { provider: this.#options.provider.name, model, source: info ? 'table' : fallback ? 'default' : 'none' };
    if (known) {
      facts.contextWindow = known.contextWindow;
      if (known.maxOutput !== undefined) facts.maxOutput = known.maxOutput;
    }
    const served = info ? 'the built-in model table serves' : fallback ? `the default window (${fallback.contextWindow} tokens) serves` : 'no window is known for this model';
    if (problems.length > 0) facts.problem = `${problems.join('; ')}; ${served}`;
    return facts;
  }

  /** An answer of the endpoint (fresh or stored), with the table filling a figure it lacks. */
  #fromAnswer(model: string, entry: StoredModelFacts, source: 'provider' | 'cache', problems: string[]): ModelFacts {
    if (entry.contextWindow === undefined && entry.maxOutput === undefined) return this.#fromTable(model, problems);
    const info = lookupModel(model, this.#options.models ? { overrides: this.#options.models } : {});
    const facts: ModelFacts = { provider: this.#options.provider.name, model, source, fetchedAt: entry.fetchedAt };
    const window = entry.contextWindow ?? info?.contextWindow;
    const output = entry.maxOutput ?? info?.maxOutput;
    if (window !== undefined) facts.contextWindow = window;
    if (output !== undefined) facts.maxOutput = window !== undefined ? Math.min(output, window) : output;
    if (problems.length > 0) facts.problem = problems.join('; ');
    return facts;
  }

  #remember(key: string, facts: ModelFacts, until: number): ModelFacts {
    this.#memory.set(key, { facts, until });
    return facts;
  }

  async #resolve(key: string, model: string, signal: AbortSignal | undefined): Promise<ModelFacts> {
    const { store, provider } = this.#options;
    const ttl = this.#options.ttlMs ?? MODEL_FACTS_TTL_MS;
    const problems: string[] = [];
    let stored: StoredModelFacts | undefined;
    if (store) {
      try {
        const record = await store.read();
        const raw = Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
        stored = checkedEntry(raw);
        if (raw !== undefined && !stored) problems.push('the stored model facts entry is malformed');
      } catch (error) {
        problems.push(`cannot read the model facts file: ${messageOf(error)}`);
      }
    }
    const now = this.#now();
    if (stored && now - stored.fetchedAt < ttl && now >= stored.fetchedAt) {
      return this.#remember(key, this.#fromAnswer(model, stored, 'cache', problems), stored.fetchedAt + ttl);
    }
    if (typeof provider.modelLimits !== 'function') return this.#remember(key, this.#fromTable(model, problems), now + ttl);

    let limits: ModelLimits;
    try {
      limits = await this.#fetch(model, signal);
    } catch (error) {
      problems.push(`${provider.name}'s models endpoint failed for ${model}: ${messageOf(error)}`);
      const fallback = stored
        ? this.#fromAnswer(model, stored, 'cache', [...problems, `using its answer from ${ageText(now - stored.fetchedAt)} ago`])
        : this.#fromTable(model, problems);
      // An abort by the caller says nothing of the endpoint: try again at the next lookup.
      return signal?.aborted ? fallback : this.#remember(key, fallback, this.#now() + (this.#options.retryMs ?? MODEL_FACTS_RETRY_MS));
    }
    const entry: StoredModelFacts = { fetchedAt: this.#now() };
    const window = positive(limits.contextWindow);
    const output = positive(limits.maxOutput);
    if (window !== undefined) entry.contextWindow = window;
    if (output !== undefined) entry.maxOutput = output;
    if (store) {
      try {
        await store.write(key, entry);
      } catch (error) {
        problems.push(`cannot write the model facts file: ${messageOf(error)}`);
      }
    }
    return this.#remember(key, this.#fromAnswer(model, entry, 'provider', problems), entry.fetchedAt + ttl);
  }

  async #fetch(model: string, signal: AbortSignal | undefined): Promise<ModelLimits> {
    const controller = new AbortController();
    const timeoutMs = this.#options.timeoutMs ?? MODEL_FACTS_TIMEOUT_MS;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = (): void => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    try {
      const request = (this.#options.provider.modelLimits as NonNullable<LLMProvider['modelLimits']>)({ model, signal: controller.signal });
      // An endpoint that ignores the signal still loses the race.
      const aborted = new Promise<never>((_, reject) => {
        controller.signal.addEventListener('abort', () => reject(new Error(timedOut ? `no answer within ${timeoutMs} ms` : 'aborted')), { once: true });
      });
      return await Promise.race([request, aborted]);
    } catch (error) {
      if (timedOut) throw new Error(`no answer within ${timeoutMs} ms`, { cause: error });
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
