import type { LLMRequest, LLMResponse, LLMStreamEvent } from '@nanobot/schema';
import { IdleTimer } from './idle-timer.js';
import { ProviderAbortError, ProviderError } from './provider-error.js';
import { abortableSleep, retryDelayMs } from './with-retry.js';
import type { RetryOptions } from './with-retry.js';

/**
 * One open provider stream: the SDK's raw event iterable plus a synchronous assembler. Keeping
 * the per-event work synchronous is what lets `ProviderStream` add almost nothing per delta.
 */
export interface StreamSource {
  events: AsyncIterable<unknown>;
  /** Turns one SDK event into zero or more of ours, appended to `out`. May throw. */
  push(event: unknown, out: LLMStreamEvent[]): void;
  /** The assembled answer; throws `ProviderError` when the stream did not finish properly. */
  finish(): LLMResponse;
}

/** What a `ProviderStream` needs from its provider. */
export interface StreamOwner {
  /** The retry policy for this request (see `BaseProvider.retryOptionsFor`). */
  retryOptionsFor(request: LLMRequest): RetryOptions;
  /** The last step of the assembled answer (structured-output parsing); may throw. */
  finalize(response: LLMResponse, request: LLMRequest): LLMResponse;
  readonly streamIdleTimeoutMs: number;
  openStream(request: LLMRequest, signal: AbortSignal): Promise<StreamSource>;
  /** Converts whatever an attempt threw (SDK error, stall, cut) into our error types. */
  streamError(error: unknown, idle: IdleTimer, signal?: AbortSignal, opened?: boolean): Error;
  /** Messages to retry with (images replaced) after `error`, or null. */
  imageRetryMessages(error: unknown, messages: LLMRequest['messages']): LLMRequest['messages'] | null;
}

const END: IteratorResult<LLMStreamEvent> = { done: true, value: undefined };

/**
 * The async iterator behind `BaseProvider.stream`, written by hand rather than as an async
 * generator: a generator layer costs a few promise hops per delta, which alone exceeded the 5%
 * budget over the raw SDK. Semantics: deltas as they arrive, then exactly one `done`, or a throw.
 * A failure before the first event is retried (and the image-less retry applied); after it, the
 * error is thrown, since re-running would duplicate output the consumer already showed.
 */
export class ProviderStream implements AsyncIterableIterator<LLMStreamEvent> {
  private current: LLMRequest;
  private attempt = 1;
  private imagesStripped = false;
  private state: 'closed' | 'open' | 'finished' = 'closed';
  private idle: IdleTimer | undefined;
  private source: StreamSource | undefined;
  private inner: AsyncIterator<unknown> | undefined;
  private readonly queue: LLMStreamEvent[] = [];
  private head = 0;
  private yielded = false;
  private retryOptions: RetryOptions | undefined;

  constructor(private readonly owner: StreamOwner, private readonly request: LLMRequest) {
    this.current = request;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<LLMStreamEvent>> {
    if (this.head < this.queue.length) return Promise.resolve(this.shift());
    if (this.state === 'finished') return Promise.resolve(END);
    if (this.state === 'closed') return this.open();
    return this.inner!.next().then(this.onEvent, this.onFailure);
  }

  /** Stops early (a consumer's `break`): closes the SDK stream, which aborts the HTTP request. */
  async return(): Promise<IteratorResult<LLMStreamEvent>> {
    const inner = this.inner;
    this.finishUp();
    await inner?.return?.();
    return END;
  }

  private shift(): IteratorResult<LLMStreamEvent> {
    const value = this.queue[this.head++];
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    }
    this.yielded = true;
    return { done: false, value };
  }

  private finishUp(): void {
    this.state = 'finished';
    this.idle?.stop();
    this.inner = undefined;
    this.source = undefined;
  }

  private async open(): Promise<IteratorResult<LLMStreamEvent>> {
    const signal = this.request.signal;
    if (signal?.aborted) {
      this.finishUp();
      throw new ProviderAbortError();
    }
    this.idle = new IdleTimer(this.owner.streamIdleTimeoutMs, signal);
    try {
      this.source = await this.owner.openStream(this.current, this.idle.signal);
      this.inner = this.source.events[Symbol.asyncIterator]();
    } catch (error) {
      return this.fail(error);
    }
    this.state = 'open';
    return this.next();
  }

  private readonly onEvent = (result: IteratorResult<unknown>): IteratorResult<LLMStreamEvent> | Promise<IteratorResult<LLMStreamEvent>> => {
    if (this.state !== 'open') return END;
    try {
      if (result.done) return this.complete();
      this.idle!.touch();
      this.source!.push(result.value, this.queue);
    } catch (error) {
      return this.fail(error);
    }
    const queue = this.queue;
    // Fast path: one event per SDK event is the common case.
    if (queue.length === 1 && this.head === 0) {
      this.yielded = true;
      return { done: false, value: queue.pop()! };
    }
    return queue.length > 0 ? this.shift() : this.next();
  };

  private readonly onFailure = (error: unknown): Promise<IteratorResult<LLMStreamEvent>> => this.fail(error);

  private complete(): IteratorResult<LLMStreamEvent> {
    // The SDKs end a stream silently when it is aborted: check before trusting the end.
    if (this.request.signal?.aborted || this.idle!.timedOut) throw new Error('stream ended early');
    const assembled = this.source!.finish();
    this.finishUp();
    const response = this.owner.finalize(this.imagesStripped ? { ...assembled, imagesStripped: true } : assembled, this.request);
    return { done: false, value: { type: 'done', response } };
  }

  private async fail(raw: unknown): Promise<IteratorResult<LLMStreamEvent>> {
    const signal = this.request.signal;
    // A connection lost after the response started is a cut stream; before, a plain connection error.
    const error = this.owner.streamError(raw, this.idle!, signal, this.source !== undefined);
    this.finishUp();
    if (this.yielded || !(error instanceof ProviderError)) throw error;
    const options = (this.retryOptions ??= this.owner.retryOptionsFor(this.request));
    if (error.retryable && this.attempt < Math.max(1, options.maxAttempts ?? 4)) {
      const delayMs = retryDelayMs(error, this.attempt, options);
      options.onRetry?.({ attempt: this.attempt, delayMs, error });
      await (options.sleep ?? abortableSleep)(delayMs, signal);
      this.attempt++;
    } else {
      const stripped = this.imagesStripped ? null : this.owner.imageRetryMessages(error, this.current.messages);
      if (!stripped) throw error;
      this.current = { ...this.current, messages: stripped };
      this.imagesStripped = true;
      this.attempt = 1;
    }
    this.state = 'closed';
    return this.open();
  }
}
