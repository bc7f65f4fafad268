import { ProviderAbortError, ProviderError, isAbortError } from './provider-error.js';
import type { ProviderErrorKind } from './provider-error.js';
import { retryAfterFromHeaders, retryAfterFromText } from './retry-after.js';

const QUOTA_CODES = new Set([
  'insufficient_quota', 'quota_exceeded', 'quota_exhausted', 'billing_hard_limit_reached',
  'insufficient_balance', 'credit_balance_too_low', 'billing_not_active', 'payment_required',
]);
const QUOTA_TEXT = [
  'insufficient_quota', 'insufficient quota', 'quota exceeded', 'quota exhausted', 'billing hard limit',
  'billing_hard_limit_reached', 'billing not active', 'insufficient balance', 'insufficient_balance',
  'credit balance too low', 'payment required', 'out of credits', 'out of quota', 'exceeded your current quota',
];
const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);

interface ApiErrorLike {
  status?: unknown;
  headers?: unknown;
  error?: unknown;
  message?: unknown;
  code?: unknown;
  type?: unknown;
  cause?: unknown;
  name?: unknown;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The API's error `{type, code, message}` from either SDK's shape (OpenAI inner object, Anthropic whole body). */
function apiErrorBody(error: ApiErrorLike): { type?: string; code?: string; message?: string } {
  let body = error.error as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && body.type === 'error' && typeof body.error === 'object' && body.error !== null) {
    body = body.error as Record<string, unknown>;
  }
  if (!body || typeof body !== 'object') return { type: str(error.type), code: str(error.code) };
  return { type: str(body.type) ?? str(error.type), code: str(body.code) ?? (typeof body.code === 'number' ? String(body.code) : str(error.code)), message: str(body.message) };
}

function causeChainCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function kindFromApiType(type: string | undefined, code: string | undefined): ProviderErrorKind | undefined {
  const key = `${type ?? ''} ${code ?? ''}`;
  if ([...QUOTA_CODES].some((q) => key.includes(q))) return 'quota';
  if (/overloaded/.test(key)) return 'overloaded';
  if (/rate_limit/.test(key)) return 'rate_limit';
  if (/context_length|context_window/.test(key)) return 'context_length';
  if (/content_filter|content_policy/.test(key)) return 'content_filter';
  if (/authentication|permission|invalid_api_key/.test(key)) return 'auth';
  if (/not_found/.test(key)) return 'not_found';
  if (/invalid_request/.test(key)) return 'bad_request';
  if (/api_error|server_error|internal/.test(key)) return 'server';
  if (/timeout/.test(key)) return 'timeout';
  return undefined;
}

const RETRYABLE_KINDS = new Set<ProviderErrorKind>(['rate_limit', 'server', 'overloaded', 'timeout', 'connection', 'stream_interrupted']);

/**
 * Turns anything an SDK call threw into a `ProviderError` (or `ProviderAbortError` when the
 * caller aborted). Classifies by HTTP status first, then the API's error type, then the network
 * error code; free text is consulted only for quota words and retry hints (a stray "500" in a
 * message does not make an error retryable, unlike the reference).
 */
export function toProviderError(error: unknown, provider: string, signal?: AbortSignal): ProviderError | ProviderAbortError {
  if (error instanceof ProviderError || error instanceof ProviderAbortError) return error;
  if (signal?.aborted || isAbortError(error)) return new ProviderAbortError(undefined, { cause: error });
  const e = (typeof error === 'object' && error !== null ? error : {}) as ApiErrorLike;
  // The SDKs' error classes keep `name === 'Error'`; their constructor names are the reliable part.
  const ctor = typeof error === 'object' && error !== null ? (error as { constructor?: { name?: unknown } }).constructor?.name : undefined;
  const name = typeof ctor === 'string' && ctor.startsWith('API') ? ctor : (str(e.name) ?? '');
  const status = typeof e.status === 'number' ? e.status : undefined;
  const body = apiErrorBody(e);
  const text = body.message ?? messageOf(error);
  const lower = text.toLowerCase();
  const headers = e.headers as Parameters<typeof retryAfterFromHeaders>[0];
  const retryAfterMs = retryAfterFromHeaders(headers) ?? retryAfterFromText(text);
  const shouldRetryHeader = headers && typeof (headers as { get?: unknown }).get === 'function' ? (headers as { get(n: string): string | null }).get('x-should-retry') : undefined;
  const base = { status, retryAfterMs, provider, apiType: body.type, apiCode: body.code, cause: error };
  const quota = (body.type !== undefined && QUOTA_CODES.has(body.type)) || (body.code !== undefined && QUOTA_CODES.has(body.code)) || QUOTA_TEXT.some((t) => lower.includes(t));

  let kind: ProviderErrorKind;
  if (status !== undefined) {
    if (status === 402 || (status === 429 && quota)) kind = 'quota';
    else if (status === 429) kind = 'rate_limit';
    else if (status === 408) kind = 'timeout';
    else if (status === 401 || status === 403) kind = 'auth';
    else if (status === 404) kind = 'not_found';
    else if (status === 529) kind = 'overloaded';
    else if (status >= 500) kind = kindFromApiType(body.type, body.code) === 'overloaded' ? 'overloaded' : 'server';
    else if (status === 409) kind = 'server';
    else kind = kindFromApiType(body.type, body.code) ?? 'bad_request';
    if (kind === 'bad_request' && /context length|maximum context|too many tokens|prompt is too long/.test(lower)) kind = 'context_length';
  } else if (name === 'APIConnectionTimeoutError' || /timed? ?out/.test(name.toLowerCase())) {
    kind = 'timeout';
  } else if (name === 'APIConnectionError' || causeChainCode(error) || (error instanceof TypeError && /terminated|fetch failed|other side closed|socket/i.test(text))) {
    // A connection dropped after the headers surfaces as a bare TypeError('terminated').
    kind = 'connection';
  } else {
    kind = kindFromApiType(body.type, body.code) ?? 'unknown';
    if (kind === 'unknown' && quota) kind = 'quota';
  }
  let retryable = RETRYABLE_KINDS.has(kind);
  if (shouldRetryHeader === 'true') retryable = true;
  if (shouldRetryHeader === 'false') retryable = false;
  const prefix = status !== undefined ? `${provider} API error ${status}` : `${provider} request failed`;
  return new ProviderError(`${prefix} (${kind}): ${truncate(text, 500)}`, { kind, retryable, ...base });
}

function truncate(text: string, max: number): string {
  const trimmed = text.trim();
  return trimmed.length > max ? `${trimmed.slice(0, max)}…` : trimmed;
}
