import { ConfigurationError } from '@nanobot/schema';
import type { LLMProvider, LLMRequest, LLMResponse, LLMStreamEvent, ModelLimits, ModelLimitsRequest, TokenCount } from '@nanobot/schema';
import { withOwnMessages } from './own-messages.js';
import { ProviderError } from './provider-error.js';

/** One provider in a fallback chain, optionally with the model to ask it for. */
export interface FallbackCandidate {
  provider: LLMProvider;
  /** Model for this candidate (default: the provider's `defaultModel`). */
  model?: string;
}

/** What `FallbackProvider` reports when it moves on. */
export interface FallbackNotice {
  from: string;
  to: string;
  error: ProviderError;
}

/** Options of `FallbackProvider`. */
export interface FallbackProviderOptions {
  /**
   * Decides whether an error moves on to the next candidate (default: `error.retryable`, i.e.
   * rate limits, 5xx, timeouts, resets; never 400-class validation errors or aborts). Must not
   * throw; not awaited.
   */
  shouldFallback?: (error: ProviderError) => boolean;
  /** Told each time a candidate failed and the next one is tried. Not awaited; must not throw. */
  onFallback?: (notice: FallbackNotice) => void;
  /**
   * Skip a primary that keeps failing: after `failureThreshold` (3) consecutive fallback-eligible
   * failures it is skipped for `cooldownMs` (60 000), then probed once; a success closes the
   * circuit. `false` turns it off. `now` is injectable for tests.
   */
  circuitBreaker?: false | { failureThreshold?: number; cooldownMs?: number; now?: () => number };
  /**
   * Attempts each candidate but the last gets before the next one is tried (default 1: move on
   * after the first retryable failure, so a failing primary costs one request, not its whole
   * retry schedule). The last candidate keeps its own retry policy. Sent as the request's
   * `maxAttempts`, which the SDK-backed providers honour; `Infinity` keeps every candidate's own
   * policy.
   */
  attemptsPerCandidate?: number;
}

function label(candidate: FallbackCandidate): string {
  return `${candidate.provider.name}:${candidate.model ?? candidate.provider.defaultModel}`;
}

/**
 * Tries providers in order: the next one when the previous failed with a retryable error (by
 * default after its first failed attempt, see `attemptsPerCandidate`). The response's `provider` and `model` say who answered.
 * A stream falls back only if the failed candidate had not produced any event yet. A primary that
 * keeps failing is skipped for a while (circuit breaker), then probed again.
 */
export class FallbackProvider implements LLMProvider {
  readonly name = 'fallback';
  readonly defaultModel: string;
  private readonly candidates: FallbackCandidate[];
  private readonly shouldFallback: (error: ProviderError) => boolean;
  private readonly onFallback?: (notice: FallbackNotice) => void;
  private readonly breaker: { failureThreshold: number; cooldownMs: number; now: () => number } | null;
  private primaryFailures = 0;
  private openUntil = 0;
  private readonly attemptsPerCandidate: number;
  /**
   * The exact count from the candidate that would answer now (the primary, or the next one while
   * the primary's circuit is open), for the model it would be asked for. Present when the
   * primary has `countTokens`; rejects with a `ProviderError` when the candidate answering now
   * has none. Never moves on to another candidate: a count must match the request sent.
   */
  readonly countTokens?: (request: LLMRequest) => Promise<TokenCount>;
  /** The primary's published limits (its `modelLimits`), for the model the run is configured for. Present when the primary has it. */
  readonly modelLimits?: (request: ModelLimitsRequest) => Promise<ModelLimits>;

  constructor(candidates: readonly (LLMProvider | FallbackCandidate)[], options: FallbackProviderOptions = {}) {
    if (candidates.length === 0) throw new ConfigurationError('FallbackProvider needs at least one provider.');
    this.candidates = candidates.map((c) => ('provider' in c && typeof (c as FallbackCandidate).provider?.chat === 'function' ? (c as FallbackCandidate) : { provider: c as LLMProvider }));
    this.defaultModel = this.candidates[0].model ?? this.candidates[0].provider.defaultModel;
    this.shouldFallback = options.shouldFallback ?? ((error) => error.retryable);
    this.onFallback = options.onFallback;
    this.attemptsPerCandidate = Math.max(1, options.attemptsPerCandidate ?? 1);
    const b = options.circuitBreaker;
    this.breaker = b === false ? null : { failureThreshold: b?.failureThreshold ?? 3, cooldownMs: b?.cooldownMs ?? 60_000, now: b?.now ?? Date.now };
    const primary = this.candidates[0];
    if (typeof primary.provider.countTokens === 'function') this.countTokens = (request) => this.countWith(request);
    if (typeof primary.provider.modelLimits === 'function') {
      const limitsOf = primary.provider.modelLimits.bind(primary.provider);
      this.modelLimits = (request) => limitsOf({ ...request, model: request.model ?? primary.model ?? primary.provider.defaultModel });
    }
  }

  private async countWith(request: LLMRequest): Promise<TokenCount> {
    const index = this.firstIndex();
    const candidate = this.candidates[index];
    if (typeof candidate.provider.countTokens !== 'function') {
      throw new ProviderError(`${label(candidate)} answers now and has no count endpoint.`, { kind: 'not_found', retryable: false, provider: candidate.provider.name });
    }
    return candidate.provider.countTokens(this.requestFor(candidate, index, request));
  }

  /** Whether the primary is currently skipped (its circuit is open). */
  get primaryCircuitOpen(): boolean {
    return this.breaker !== null && this.candidates.length > 1 && this.breaker.now() < this.openUntil;
  }

  private firstIndex(): number {
    return this.primaryCircuitOpen ? 1 : 0;
  }

  private recordPrimary(ok: boolean, error?: unknown): void {
    if (!this.breaker) return;
    if (ok) {
      this.primaryFailures = 0;
      this.openUntil = 0;
      return;
    }
    if (!(error instanceof ProviderError) || !this.shouldFallback(error)) return;
    this.primaryFailures++;
    // A failed half-open probe re-opens at once; otherwise after the threshold.
    if (this.primaryFailures >= this.breaker.failureThreshold || this.openUntil !== 0) this.openUntil = this.breaker.now() + this.breaker.cooldownMs;
  }

  private requestFor(candidate: FallbackCandidate, index: number, request: LLMRequest): LLMRequest {
    let out: LLMRequest;
    // The request's own model applies to the primary only; fallbacks use theirs.
    if (index === 0) out = candidate.model && !request.model ? { ...request, model: candidate.model } : request;
    else out = { ...request, model: candidate.model ?? candidate.provider.defaultModel };
    const last = index === this.candidates.length - 1;
    if (!last && Number.isFinite(this.attemptsPerCandidate) && request.maxAttempts === undefined) out = { ...out, maxAttempts: this.attemptsPerCandidate };
    return out;
  }

  private next(index: number, error: unknown, request: LLMRequest): boolean {
    if (!(error instanceof ProviderError) || index === this.candidates.length - 1 || !this.shouldFallback(error)) return false;
    const from = label(this.candidates[index]);
    const to = label(this.candidates[index + 1]);
    this.onFallback?.({ from, to, error });
    const reason = error.status !== undefined ? `${error.kind} (${error.status})` : error.kind;
    request.onNotice?.({ type: 'fallback', from, to, reason, ...(error.status !== undefined ? { status: error.status } : {}) });
    return true;
  }

  /**
   * Asks each candidate in turn; rejects with the last error when none answered. Every candidate
   * gets the messages as they were at the call (the list is copied on entry).
   */
  async chat(input: LLMRequest): Promise<LLMResponse> {
    const request = withOwnMessages(input);
    for (let i = this.firstIndex(); ; i++) {
      const candidate = this.candidates[i];
      const req = this.requestFor(candidate, i, request);
      try {
        const response = await candidate.provider.chat(req);
        if (i === 0) this.recordPrimary(true);
        return { ...response, provider: response.provider ?? candidate.provider.name, model: response.model ?? req.model ?? candidate.provider.defaultModel };
      } catch (error) {
        if (i === 0) this.recordPrimary(false, error);
        if (!this.next(i, error, request)) throw error;
      }
    }
  }

  /** Streams from the first candidate that starts answering (messages as they were at the call). */
  stream(request: LLMRequest): AsyncGenerator<LLMStreamEvent> {
    // Copied now: a generator body runs at the first `next()`, a fallback candidate even later.
    return this.streamFrom(withOwnMessages(request));
  }

  private async *streamFrom(request: LLMRequest): AsyncGenerator<LLMStreamEvent> {
    for (let i = this.firstIndex(); ; i++) {
      const candidate = this.candidates[i];
      const req = this.requestFor(candidate, i, request);
      let started = false;
      try {
        for await (const event of candidate.provider.stream(req)) {
          started = true;
          if (event.type === 'done') {
            if (i === 0) this.recordPrimary(true);
            const r = event.response;
            yield { type: 'done', response: { ...r, provider: r.provider ?? candidate.provider.name, model: r.model ?? req.model ?? candidate.provider.defaultModel } };
          } else {
            yield event;
          }
        }
        return;
      } catch (error) {
        if (i === 0) this.recordPrimary(false, error);
        if (started || !this.next(i, error, request)) throw error;
      }
    }
  }
}
