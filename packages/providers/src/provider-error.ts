import { NanobotError } from '@nanobot/schema';

/** Why a model call failed, in words a retry or fallback policy can branch on. */
export type ProviderErrorKind =
  | 'rate_limit'
  | 'quota'
  | 'server'
  | 'overloaded'
  | 'timeout'
  | 'connection'
  | 'bad_request'
  | 'auth'
  | 'not_found'
  | 'context_length'
  | 'content_filter'
  | 'empty_response'
  | 'stream_interrupted'
  | 'unknown';

/** Fields of a `ProviderError`. */
export interface ProviderErrorInit {
  kind: ProviderErrorKind;
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
  provider?: string;
  /** The API's own error type/code (e.g. `insufficient_quota`, `overloaded_error`). */
  apiType?: string;
  apiCode?: string;
  cause?: unknown;
}

/**
 * A model API call failed. `code` is `PROVIDER_<KIND>` (stable); `retryable` says whether the same
 * request may succeed later (429 except quota, 408/409, 5xx, timeouts, resets, cut streams);
 * `retryAfterMs` is the server's hint when it gave one.
 */
export class ProviderError extends NanobotError {
  readonly kind: ProviderErrorKind;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly provider: string | undefined;
  readonly apiType: string | undefined;
  readonly apiCode: string | undefined;

  constructor(message: string, init: ProviderErrorInit) {
    super(`PROVIDER_${init.kind.toUpperCase()}`, message, { cause: init.cause });
    this.kind = init.kind;
    this.status = init.status;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
    this.provider = init.provider;
    this.apiType = init.apiType;
    this.apiCode = init.apiCode;
  }
}

/**
 * The caller's `AbortSignal` fired. Named `AbortError` (like the platform's) so generic
 * `err.name === 'AbortError'` checks work; never retried and never a reason to fall back.
 */
export class ProviderAbortError extends NanobotError {
  constructor(message = 'The model request was aborted.', options: { cause?: unknown } = {}) {
    super('PROVIDER_ABORTED', message, options);
    this.name = 'AbortError';
  }
}

/** True for our abort error, the platform's, and the SDKs' user-abort errors. */
export function isAbortError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error instanceof ProviderAbortError || error.name === 'AbortError' || error.name === 'APIUserAbortError' || error.constructor.name === 'APIUserAbortError';
}
