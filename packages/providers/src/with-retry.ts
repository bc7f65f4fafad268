import type { LLMStreamEvent } from '@nanobot/schema';
import { ProviderAbortError, ProviderError } from './provider-error.js';

/** What a retry policy is told before it waits. */
export interface RetryNotice {
  /** The attempt that just failed (1-based). */
  attempt: number;
  delayMs: number;
  error: ProviderError;
}

/** How a provider retries transient failures. All fields optional; defaults follow the reference. */
export interface RetryOptions {
  /** Total attempts including the first (default 4, i.e. waits of 1 s, 2 s, 4 s). */
  maxAttempts?: number;
  /** Waits between attempts when the server gave no hint (default `[1000, 2000, 4000]`; the last repeats). */
  delaysMs?: readonly number[];
  /** Upper bound of any wait, including a server's `Retry-After` (default 60 000 ms). */
  maxDelayMs?: number;
  /**
   * Waits `ms` (tests inject an instant one). Must reject when `signal` aborts. Awaited; may throw
   * (the error ends the call).
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told before each wait (e.g. to print "retrying in 2s"). Not awaited; must not throw. */
  onRetry?: (notice: RetryNotice) => void;
}

/** Python's `round` (half to even), so progress lines match the reference's numbers. */
function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * The reference's progress line for a retry wait: `Model request failed, retry in 8s (attempt 1).`
 * (for a CLI or channel to show while `RetryOptions.onRetry` is waiting).
 */
export function retryWaitMessage(notice: Pick<RetryNotice, 'attempt' | 'delayMs'>): string {
  return `Model request failed, retry in ${Math.max(1, roundHalfEven(notice.delayMs / 1000))}s (attempt ${notice.attempt}).`;
}

/** A `setTimeout` sleep that rejects with `ProviderAbortError` when `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ProviderAbortError());
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ProviderAbortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The wait before the next attempt: the server's hint plus one second, else the backoff table; capped. */
export function retryDelayMs(error: ProviderError, attempt: number, options: RetryOptions = {}): number {
  const delays = options.delaysMs ?? [1000, 2000, 4000];
  const cap = options.maxDelayMs ?? 60_000;
  const base = error.retryAfterMs !== undefined && error.retryAfterMs > 0 ? error.retryAfterMs + 1000 : delays[Math.min(attempt - 1, delays.length - 1)] ?? 1000;
  return Math.min(base, cap);
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable error, or attempts run out.
 * `attempt` must throw `ProviderError`/`ProviderAbortError` (anything else is rethrown as is).
 */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, options: RetryOptions = {}, signal?: AbortSignal): Promise<T> {
  const max = Math.max(1, options.maxAttempts ?? 4);
  const sleep = options.sleep ?? abortableSleep;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(error instanceof ProviderError) || !error.retryable || n >= max) throw error;
      const delayMs = retryDelayMs(error, n, options);
      options.onRetry?.({ attempt: n, delayMs, error });
      await sleep(delayMs, signal);
      if (signal?.aborted) throw new ProviderAbortError();
    }
  }
}

/**
 * The streaming form of `withRetry`: an attempt that fails before yielding anything is retried;
 * once an event has been yielded, a failure is rethrown (re-running would duplicate output the
 * consumer already showed), with `ProviderError.kind` telling the consumer it was cut.
 */
export async function* withStreamRetry(open: (n: number) => AsyncIterable<LLMStreamEvent>, options: RetryOptions = {}, signal?: AbortSignal): AsyncGenerator<LLMStreamEvent> {
  const max = Math.max(1, options.maxAttempts ?? 4);
  const sleep = options.sleep ?? abortableSleep;
  for (let n = 1; ; n++) {
    let yielded = false;
    try {
      for await (const event of open(n)) {
        yielded = true;
        yield event;
      }
      return;
    } catch (error) {
      if (yielded || !(error instanceof ProviderError) || !error.retryable || n >= max) throw error;
      const delayMs = retryDelayMs(error, n, options);
      options.onRetry?.({ attempt: n, delayMs, error });
      await sleep(delayMs, signal);
      if (signal?.aborted) throw new ProviderAbortError();
    }
  }
}
