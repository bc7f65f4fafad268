import { ConfigurationError } from '@nanobot/schema';
import type { LLMProvider, LLMRequest, LLMResponse, LLMStreamEvent } from '@nanobot/schema';
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
}

function label(candidate: FallbackCandidate): string {
  return `${candidate.provider.name}:${candidate.model ?? candidate.provider.defaultModel}`;
}

/**
 * Tries providers in order: the next one only when the previous failed with a retryable error
 * (after that provider's own retries). The response's `provider` and `model` say who answered.
 * A stream falls back only if the failed candidate had not produced any event yet.
 */
export class FallbackProvider implements LLMProvider {
  readonly name = 'fallback';
  readonly defaultModel: string;
  private readonly candidates: FallbackCandidate[];
  private readonly shouldFallback: (error: ProviderError) => boolean;
  private readonly onFallback?: (notice: FallbackNotice) => void;

  constructor(candidates: readonly (LLMProvider | FallbackCandidate)[], options: FallbackProviderOptions = {}) {
    if (candidates.length === 0) throw new ConfigurationError('FallbackProvider needs at least one provider.');
    this.candidates = candidates.map((c) => ('provider' in c && typeof (c as FallbackCandidate).provider?.chat === 'function' ? (c as FallbackCandidate) : { provider: c as LLMProvider }));
    this.defaultModel = this.candidates[0].model ?? this.candidates[0].provider.defaultModel;
    this.shouldFallback = options.shouldFallback ?? ((error) => error.retryable);
    this.onFallback = options.onFallback;
  }

  private requestFor(candidate: FallbackCandidate, index: number, request: LLMRequest): LLMRequest {
    // The request's own model applies to the first candidate only; fallbacks use theirs.
    if (index === 0) return candidate.model && !request.model ? { ...request, model: candidate.model } : request;
    return { ...request, model: candidate.model ?? candidate.provider.defaultModel };
  }

  private next(index: number, error: unknown): boolean {
    if (!(error instanceof ProviderError) || index === this.candidates.length - 1 || !this.shouldFallback(error)) return false;
    this.onFallback?.({ from: label(this.candidates[index]), to: label(this.candidates[index + 1]), error });
    return true;
  }

  /** Asks each candidate in turn; rejects with the last error when none answered. */
  async chat(request: LLMRequest): Promise<LLMResponse> {
    for (let i = 0; ; i++) {
      const candidate = this.candidates[i];
      const req = this.requestFor(candidate, i, request);
      try {
        const response = await candidate.provider.chat(req);
        return { ...response, provider: response.provider ?? candidate.provider.name, model: response.model ?? req.model ?? candidate.provider.defaultModel };
      } catch (error) {
        if (!this.next(i, error)) throw error;
      }
    }
  }

  /** Streams from the first candidate that starts answering. */
  async *stream(request: LLMRequest): AsyncGenerator<LLMStreamEvent> {
    for (let i = 0; ; i++) {
      const candidate = this.candidates[i];
      const req = this.requestFor(candidate, i, request);
      let started = false;
      try {
        for await (const event of candidate.provider.stream(req)) {
          started = true;
          if (event.type === 'done') {
            const r = event.response;
            yield { type: 'done', response: { ...r, provider: r.provider ?? candidate.provider.name, model: r.model ?? req.model ?? candidate.provider.defaultModel } };
          } else {
            yield event;
          }
        }
        return;
      } catch (error) {
        if (started || !this.next(i, error)) throw error;
      }
    }
  }
}
