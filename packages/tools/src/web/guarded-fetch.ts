import { pinnedFetch, type FetchLike } from './pinned-fetch.js';
import { vetUrl, type SsrfPolicy } from './ssrf-guard.js';

/** Options of `guardedFetch`. */
export interface GuardedFetchOptions extends SsrfPolicy {
  /** One-hop fetcher (default `pinnedFetch`). */
  readonly fetch?: FetchLike;
  /** Redirects followed at most (default 5, as the reference). */
  readonly maxRedirects?: number;
  /** Bytes of body kept at most (default 5 MB); the rest is not downloaded. */
  readonly maxBytes?: number;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
}

/** What `guardedFetch` returns. */
export interface GuardedResponse {
  readonly finalUrl: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: Uint8Array;
  /** True when the body was cut at `maxBytes`. */
  readonly bodyTruncated: boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

async function readCapped(res: Response, maxBytes: number): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (!res.body) return { body: new Uint8Array(0), truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  return { body, truncated };
}

/**
 * GET a URL with the SSRF guard on every hop: the URL is vetted (scheme, host, every resolved
 * address) before connecting, the connection is pinned to a vetted address, and redirects are
 * followed here, one by one, each target vetted again before it is contacted. Throws
 * `SsrfBlockedError` for a private target at any hop, `UrlRejectedError` for a bad URL, or the
 * fetcher's error.
 */
export async function guardedFetch(url: string, options: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const fetchImpl = options.fetch ?? pinnedFetch;
  const maxRedirects = options.maxRedirects ?? 5;
  const signal = options.signal ?? new AbortController().signal;
  let current = url;
  for (let hop = 0; ; hop++) {
    const target = await vetUrl(current, options, hop > 0);
    const res = await fetchImpl(target.url.href, {
      method: 'GET',
      headers: { ...(options.headers ?? {}) },
      signal,
      redirect: 'manual',
      // IPv4 first: hosts without IPv6 routes are common, and every vetted address is equally safe.
      pinnedAddress: target.addresses.find((a) => a.family === 4) ?? target.addresses[0],
    });
    const location = res.headers.get('location');
    if (REDIRECTS.has(res.status) && location) {
      await res.body?.cancel().catch(() => undefined);
      if (hop >= maxRedirects) throw new Error(`Too many redirects (max ${maxRedirects})`);
      current = new URL(location, target.url).href;
      continue;
    }
    const { body, truncated } = await readCapped(res, options.maxBytes ?? 5 * 1024 * 1024);
    return {
      finalUrl: target.url.href,
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      body,
      bodyTruncated: truncated,
    };
  }
}
