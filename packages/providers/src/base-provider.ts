import type { LLMProvider, LLMRequest, LLMResponse, LLMStreamEvent } from '@nanobot/schema';
import { ProviderError } from './provider-error.js';
import { stripImageContent } from './strip-image-content.js';
import { withRetry, withStreamRetry } from './with-retry.js';
import type { RetryOptions } from './with-retry.js';

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
  /** Longest silence between two stream events before the stream counts as stalled (default 90 000 ms). */
  streamIdleTimeoutMs?: number;
}

const IMAGE_RETRY_KINDS = new Set(['bad_request', 'not_found', 'unknown']);

function imageRetryMessages(error: unknown, request: LLMRequest, enabled: boolean): LLMRequest['messages'] | null {
  if (!enabled || !(error instanceof ProviderError) || error.retryable || !IMAGE_RETRY_KINDS.has(error.kind)) return null;
  return stripImageContent(request.messages);
}

/**
 * Shared policy of the SDK-backed providers: retries with backoff around one attempt, the
 * image-stripping retry, and the guarantee that a stream ends with exactly one `done` or throws.
 * Subclasses implement one attempt (`chatOnce`, `streamOnce`) and convert messages on a copy.
 */
export abstract class BaseProvider implements LLMProvider {
  abstract readonly name: string;
  readonly defaultModel: string;
  protected readonly retryOptions: RetryOptions;
  protected readonly stripImagesOnReject: boolean;
  protected readonly streamIdleTimeoutMs: number;

  constructor(options: BaseProviderOptions) {
    this.defaultModel = options.model;
    this.retryOptions = options.retry ?? {};
    this.stripImagesOnReject = options.stripImagesOnReject ?? true;
    this.streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? 90_000;
  }

  /** One non-streaming attempt; must throw `ProviderError`/`ProviderAbortError` on failure. */
  protected abstract chatOnce(request: LLMRequest): Promise<LLMResponse>;
  /** One streaming attempt; must end with one `done` event or throw. */
  protected abstract streamOnce(request: LLMRequest): AsyncIterable<LLMStreamEvent>;

  /** Sends `request` and returns the whole answer, retrying transient failures. */
  async chat(request: LLMRequest): Promise<LLMResponse> {
    try {
      return await withRetry(() => this.chatOnce(request), this.retryOptions, request.signal);
    } catch (error) {
      const stripped = imageRetryMessages(error, request, this.stripImagesOnReject);
      if (!stripped) throw error;
      const response = await withRetry(() => this.chatOnce({ ...request, messages: stripped }), this.retryOptions, request.signal);
      return { ...response, imagesStripped: true };
    }
  }

  /** Streams `request`: deltas as they arrive, then one `done` with the assembled answer. */
  async *stream(request: LLMRequest): AsyncGenerator<LLMStreamEvent> {
    let yielded = false;
    try {
      for await (const event of withStreamRetry(() => this.streamOnce(request), this.retryOptions, request.signal)) {
        yielded = true;
        yield event;
      }
    } catch (error) {
      const stripped = yielded ? null : imageRetryMessages(error, request, this.stripImagesOnReject);
      if (!stripped) throw error;
      for await (const event of withStreamRetry(() => this.streamOnce({ ...request, messages: stripped }), this.retryOptions, request.signal)) {
        yield event.type === 'done' ? { type: 'done', response: { ...event.response, imagesStripped: true } } : event;
      }
    }
  }
}
