import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import type { ResolvedAddress } from './ssrf-guard.js';

/** The request `web_fetch` makes for one hop; redirects are never followed by the fetcher. */
export interface FetchInit {
  readonly method: 'GET';
  readonly headers: Record<string, string>;
  readonly signal: AbortSignal;
  readonly redirect: 'manual';
  /** The vetted address to connect to; a fetcher that honours it makes DNS rebinding impossible. */
  readonly pinnedAddress: ResolvedAddress;
}

/**
 * A fetch-like function for one hop. Injected into `web_fetch` so tests (and hosts with their
 * own HTTP stack) can supply it; awaited; may throw (reported to the model as a fetch failure);
 * must not follow redirects itself (return the 3xx response: every hop is re-vetted).
 */
export type FetchLike = (url: string, init: FetchInit) => Promise<Response>;

/**
 * The default fetcher: node:http/https with a `lookup` that returns only the pinned, vetted
 * address, so the connection goes exactly where the guard looked (TLS still verifies the host
 * name). Per connection, no global resolver patching and no global lock (a reference weak spot).
 */
export const pinnedFetch: FetchLike = (url, init) =>
  new Promise<Response>((resolvePromise, reject) => {
    const target = new URL(url);
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) {
        (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
          { address: init.pinnedAddress.address, family: init.pinnedAddress.family },
        ]);
      } else callback(null, init.pinnedAddress.address, init.pinnedAddress.family);
    };
    const requester = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = requester(target, { method: init.method, headers: init.headers, signal: init.signal, lookup: pinned }, (res: IncomingMessage) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (Array.isArray(value)) for (const v of value) headers.append(name, v);
        else if (value !== undefined) headers.set(name, value);
      }
      const status = res.statusCode ?? 502;
      const noBody = status === 204 || status === 304;
      if (noBody) res.resume();
      const body = noBody ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
      resolvePromise(new Response(body, { status: status < 200 ? 502 : status, headers }));
    });
    req.on('error', reject);
    req.end();
  });
