import { StructuredOutputError, parseStructuredOutput } from '@nanobot/schema';
import type { LLMProvider, LLMRequest, LLMResponse, LLMStreamEvent } from '@nanobot/schema';
import { toProviderError } from './classify-error.js';
import type { IdleTimer } from './idle-timer.js';
import { ProviderAbortError, ProviderError } from './provider-error.js';
import { withOwnMessages } from './own-messages.js';
import { stripImageContent } from './strip-image-content.js';
import { withRetry } from './with-retry.js';
import { ProviderStream } from './provider-stream.js';
import type { StreamSource } from './provider-stream.js';
import type { GovernorTarget } from './registry/provider-spec.js';
import type { RetryOptions } from './with-retry.js';
import { processEnv } from './process-env.js';

/** Options every SDK-backed provider accepts. */
export interface BaseProviderOptions {
  /** Model used when a request names none. */
  model: string;
  /** Retry policy (ours: the SDK's own retries are always off). */
  retry?: RetryOptions;
  /**
   * Retry once with images replaced by a placeholder when the API rejects a request that has
   * images (default true): text-only models and gateways answer 400 to image parts.
   */
  stripImagesOnReject?: boolean;
  /** Longest silence between two stream events before the stream counts as stalled (default `NANOBOT_STREAM_IDLE_TIMEOUT_S` or 90 s). */
  streamIdleTimeoutMs?: number;
  /** The governor target of the API behind this provider (`createProvider` sets its spec's `governorTarget`). */
  governorTarget?: GovernorTarget;
}

/**
 * A duration in seconds from the environment (the reference's knobs), or `fallbackMs` when unset,
 * not a positive number, or above `maxS`.
 */
export function envSeconds(name: string, fallbackMs: number, maxS = Infinity, env: Readonly<Record<string, string | undefined>> = processEnv()): number {
  const raw = env[name];
  const value = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isFinite(value) && value > 0 ? Math.min(value, maxS) * 1000 : fallbackMs;
}

const IMAGE_RETRY_KINDS = new Set(['bad_request', 'not_found', 'unknown']);

function imageRetryMessages(error: unknown, messages: LLMRequest['messages'], enabled: boolean): LLMRequest['messages'] | null {
  if (!enabled || !(error instanceof ProviderError) || error.retryable || !IMAGE_RETRY_KINDS.has(error.kind)) return null;
  return stripImageContent(messages);
}

/**
 * Shared policy of the SDK-backed providers: retries with backoff around one attempt, the
 * image-stripping retry, stall detection, and the guarantee that a stream ends with exactly one
 * `done` or throws. Subclasses implement one JSON attempt (`chatOnce`) and how to open a stream
 * (`openStream`), converting messages on a copy.
 */
export abstract class BaseProvider implements LLMProvider {
  abstract readonly name: string;
  readonly defaultModel: string;
  readonly retryOptions: RetryOptions;
  protected readonly stripImagesOnReject: boolean;
  readonly streamIdleTimeoutMs: number;
  readonly governorTarget?: GovernorTarget;

  constructor(options: BaseProviderOptions) {
    if (options.governorTarget !== undefined) this.governorTarget = options.governorTarget;
    this.defaultModel = options.model;
    this.retryOptions = options.retry ?? {};
    this.stripImagesOnReject = options.stripImagesOnReject ?? true;
    this.streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? envSeconds('NANOBOT_STREAM_IDLE_TIMEOUT_S', 90_000, 3600);
  }

  /** One non-streaming attempt; must throw `ProviderError`/`ProviderAbortError` on failure. */
  protected abstract chatOnce(request: LLMRequest): Promise<LLMResponse>;
  /** Opens one streaming attempt with `signal` (the caller's, plus stall detection). */
  abstract openStream(request: LLMRequest, signal: AbortSignal): Promise<StreamSource>;

  /**
   * Sends `request` and returns the whole answer, retrying transient failures. The message list
   * is copied on entry, so every attempt sends what was passed even if the caller appends to its
   * array meanwhile, and nothing of the caller's is kept after the call.
   */
  async chat(input: LLMRequest): Promise<LLMResponse> {
    const request = withOwnMessages(input);
    const retry = this.retryOptionsFor(request);
    try {
      return this.finalize(await withRetry(() => this.chatOnce(request), retry, request.signal), request);
    } catch (error) {
      const stripped = imageRetryMessages(error, request.messages, this.stripImagesOnReject);
      if (!stripped) throw error;
      const response = await withRetry(() => this.chatOnce({ ...request, messages: stripped }), retry, request.signal);
      return this.finalize({ ...response, imagesStripped: true }, request);
    }
  }

  /**
   * The retry policy for one request: the provider's, with the request's `maxAttempts` taking
   * precedence and each wait also told to the request's `onNotice`.
   */
  retryOptionsFor(request: LLMRequest): RetryOptions {
    const base = this.retryOptions;
    if (request.maxAttempts === undefined && !request.onNotice) return base;
    const notify = request.onNotice;
    return {
      ...base,
      maxAttempts: request.maxAttempts ?? base.maxAttempts,
      onRetry: (notice) => {
        base.onRetry?.(notice);
        const e = notice.error;
        notify?.({ type: 'retry', provider: this.name, attempt: notice.attempt, delayMs: notice.delayMs, reason: e.status !== undefined ? `${e.kind} (${e.status})` : e.kind, ...(e.status !== undefined ? { status: e.status } : {}) });
      },
    };
  }

  /**
   * The last step of every answer: with a `responseFormat`, a final answer (one without tool
   * calls: those come before the answer) is parsed and validated into `parsed`, or rejects with
   * a `StructuredOutputError` carrying the raw text.
   */
  finalize(response: LLMResponse, request: LLMRequest): LLMResponse {
    if (!request.responseFormat || response.toolCalls.length > 0) return response;
    return { ...response, parsed: parseStructuredOutput(response.content, request.responseFormat) };
  }

  /**
   * Streams `request`: deltas as they arrive, then one `done` with the assembled answer. A
   * failure before the first event is retried like `chat`; after it, it is thrown.
   */
  stream(request: LLMRequest): AsyncIterableIterator<LLMStreamEvent> {
    // Copied now: the stream opens (and may retry) later, after the caller may have appended.
    return new ProviderStream(this, withOwnMessages(request));
  }

  /** @internal Used by `ProviderStream`. */
  imageRetryMessages(error: unknown, messages: LLMRequest['messages']): LLMRequest['messages'] | null {
    return imageRetryMessages(error, messages, this.stripImagesOnReject);
  }

  /** Adds provider-specific context to an error (e.g. a hint for local servers); default: unchanged. */
  protected decorateError<E extends Error>(error: E): E {
    return error;
  }

  /** @internal Used by `ProviderStream`: whatever an attempt threw → our error types. */
  streamError(error: unknown, idle: IdleTimer, signal?: AbortSignal, opened = true): Error {
    // The answer arrived whole but off-schema: not a transport failure, never retried.
    if (error instanceof StructuredOutputError) return error;
    if (signal?.aborted) return new ProviderAbortError(undefined, { cause: error });
    if (idle.timedOut) {
      return new ProviderError(`${this.name}: the stream stalled for more than ${Math.round(idle.timeoutMs / 1000)} seconds.`, {
        kind: 'timeout',
        retryable: true,
        provider: this.name,
        cause: error,
      });
    }
    const converted = this.decorateError(toProviderError(error, this.name, signal));
    if (converted instanceof ProviderError && converted.kind === 'connection' && opened) {
      return new ProviderError(`${this.name}: the stream was cut before the model finished; the partial answer was discarded. (${converted.message})`, {
        kind: 'stream_interrupted',
        retryable: true,
        provider: this.name,
        cause: error,
      });
    }
    return converted;
  }
}
