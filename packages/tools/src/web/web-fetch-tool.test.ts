import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createToolContext } from '@nanobot/tools-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pinnedFetch, type FetchLike } from './pinned-fetch.js';
import { SsrfBlockedError } from './ssrf-blocked-error.js';
import type { HostLookup } from './ssrf-guard.js';
import { call } from '../test-support/run-tool.js';
import { createWebFetchTool, UNTRUSTED_CONTENT_BANNER } from './web-fetch-tool.js';

// A 1×1 transparent PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
let server: Server;
let port: number;
const seen: { url: string; host: string }[] = [];
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/page': (_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end('<html><head><title>Local page</title><script>steal()</script></head><body><h1>Hello</h1><p>Readable <a href="/x">text</a>.</p></body></html>');
  },
  '/long': (_req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end('z'.repeat(5000));
  },
  '/json': (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"a":1}');
  },
  '/image': (_req, res) => {
    res.setHeader('content-type', 'image/png');
    res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  },
  '/png': (_req, res) => {
    res.setHeader('content-type', 'image/png');
    res.end(PNG);
  },
  '/to-private': (_req, res) => {
    res.writeHead(302, { location: 'http://10.0.0.1/admin' });
    res.end();
  },
  '/to-metadata': (_req, res) => {
    res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
    res.end();
  },
  '/to-mapped': (_req, res) => {
    res.writeHead(307, { location: 'http://[::ffff:10.0.0.1]/' });
    res.end();
  },
  '/to-evil-name': (_req, res) => {
    res.writeHead(302, { location: 'http://evil.test/' });
    res.end();
  },
  '/to-page': (_req, res) => {
    res.writeHead(302, { location: '/page' });
    res.end();
  },
  '/loop': (_req, res) => {
    res.writeHead(302, { location: '/loop' });
    res.end();
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', host: req.headers.host ?? '' });
    const route = routes[req.url ?? ''];
    if (route) route(req, res);
    else {
      res.statusCode = 404;
      res.end('nope');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  seen.length = 0;
});

const ctx = createToolContext();
const base = () => `http://127.0.0.1:${port}`;
/** A fetcher that records every hop it is asked to make, then really makes it. */
function spyFetch(hops: string[]): FetchLike {
  return (url, init) => {
    hops.push(`${url} @ ${init.pinnedAddress.address}`);
    return pinnedFetch(url, init);
  };
}
const lookup: HostLookup = async (host) => {
  if (host === 'evil.test') return [{ address: '10.0.0.1', family: 4 }];
  if (host === 'site.test') return [{ address: '127.0.0.1', family: 4 }];
  throw new Error('ENOTFOUND');
};

describe('web_fetch', () => {
  it('returns readable text in the reference JSON envelope', async () => {
    const out = await call(createWebFetchTool({ allowLoopback: true }), { url: `${base()}/page` }, ctx);
    expect(out.isError).toBe(false);
    const body = JSON.parse(out.text);
    expect(body).toMatchObject({ url: `${base()}/page`, finalUrl: `${base()}/page`, status: 200, extractor: 'html-to-text', truncated: false, untrusted: true });
    expect(body.text.startsWith(`${UNTRUSTED_CONTENT_BANNER}\n\n# Local page`)).toBe(true);
    expect(body.text).toContain('# Hello');
    expect(body.text).toContain('Readable [text](/x).');
    expect(body.text).not.toContain('steal');
    expect(body.length).toBe(body.text.length - UNTRUSTED_CONTENT_BANNER.length - 2);
  });

  it('text mode drops markdown decorations; maxChars truncates', async () => {
    const text = JSON.parse((await call(createWebFetchTool({ allowLoopback: true }), { url: `${base()}/page`, extractMode: 'text' }, ctx)).text);
    expect(text.text).toContain('Readable text.');
    const long = JSON.parse((await call(createWebFetchTool({ allowLoopback: true }), { url: `${base()}/long`, maxChars: 100 }, ctx)).text);
    expect(long).toMatchObject({ truncated: true, length: 100, extractor: 'raw' });
  });

  it('formats JSON and refuses binary content types', async () => {
    const json = JSON.parse((await call(createWebFetchTool({ allowLoopback: true }), { url: `${base()}/json` }, ctx)).text);
    expect(json.text).toContain('"a": 1');
    const image = await call(createWebFetchTool({ allowLoopback: true }), { url: `${base()}/image` }, ctx);
    expect(image.isError).toBe(true);
    expect(JSON.parse(image.text)).toEqual({ error: 'Unsupported content type: image/png', url: `${base()}/image` });
  });

  it('returns images as native image blocks', async () => {
    const out = await call(createWebFetchTool({ allowLoopback: true }), { url: `${base()}/png` }, ctx);
    expect(out.isError).toBe(false);
    const blocks = JSON.parse(out.text);
    expect(blocks[0].text).toContain(UNTRUSTED_CONTENT_BANNER);
    expect(blocks[1]).toEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } });
  });

  it('refuses loopback unless explicitly allowed, without sending a request', async () => {
    const out = await call(createWebFetchTool(), { url: `${base()}/page` }, ctx);
    expect(out.thrown).toBeInstanceOf(SsrfBlockedError);
    expect(out.text).toBe('Blocked: 127.0.0.1 resolves to private/internal address 127.0.0.1');
    expect(seen).toHaveLength(0);
  });

  it.each([
    ['/to-private', 'Redirect target is a private address: 10.0.0.1'],
    ['/to-metadata', 'Redirect target is a private address: 169.254.169.254'],
    ['/to-mapped', 'Redirect target is a private address: ::ffff:a00:1'],
    ['/to-evil-name', 'Redirect target is a private address: 10.0.0.1'],
  ])('re-checks redirects: %s is refused before the target is contacted', async (path, message) => {
    const hops: string[] = [];
    const out = await call(createWebFetchTool({ allowLoopback: true, lookup, fetch: spyFetch(hops) }), { url: `${base()}${path}` }, ctx);
    expect(out.thrown).toBeInstanceOf(SsrfBlockedError);
    expect(out.text).toBe(message);
    expect(hops).toEqual([`${base()}${path} @ 127.0.0.1`]);
  });

  it('refuses a name that resolves to a private address', async () => {
    const hops: string[] = [];
    const out = await call(createWebFetchTool({ lookup, fetch: spyFetch(hops) }), { url: 'http://evil.test/secret' }, ctx);
    expect(out.thrown).toBeInstanceOf(SsrfBlockedError);
    expect(out.text).toBe('Blocked: evil.test resolves to private/internal address 10.0.0.1');
    expect(hops).toEqual([]);
  });

  it('pins the connection to the vetted address: a name is resolved once per hop and never again', async () => {
    let lookups = 0;
    // A rebinding resolver: first answer allowed, every later answer private.
    const rebinding: HostLookup = async () => (lookups++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.1', family: 4 }]);
    const out = await call(createWebFetchTool({ allowLoopback: true, lookup: rebinding }), { url: `http://site.test:${port}/page` }, ctx);
    expect(out.isError).toBe(false);
    expect(lookups).toBe(1);
    expect(seen).toEqual([{ url: '/page', host: `site.test:${port}` }]);
  });

  it('follows safe relative redirects and reports the final URL', async () => {
    const out = JSON.parse((await call(createWebFetchTool({ allowLoopback: true }), { url: `${base()}/to-page` }, ctx)).text);
    expect(out.finalUrl).toBe(`${base()}/page`);
    expect(seen.map((s) => s.url)).toEqual(['/to-page', '/page']);
  });

  it('gives up after 5 redirects with an error result', async () => {
    const out = await call(createWebFetchTool({ allowLoopback: true }), { url: `${base()}/loop` }, ctx);
    expect(out.isError).toBe(true);
    expect(out.thrown).toBeUndefined();
    expect(JSON.parse(out.text)).toEqual({ error: 'Too many redirects (max 5)', url: `${base()}/loop` });
    expect(seen).toHaveLength(6);
  });

  it('reports bad schemes and unresolvable hosts as error results, not SSRF', async () => {
    const scheme = await call(createWebFetchTool(), { url: 'file:///etc/passwd' }, ctx);
    expect(scheme.thrown).toBeUndefined();
    expect(JSON.parse(scheme.text).error).toBe("Only http/https allowed, got 'file'");
    const dns = await call(createWebFetchTool({ lookup }), { url: 'http://unknown.test/' }, ctx);
    expect(JSON.parse(dns.text).error).toBe('Cannot resolve hostname: unknown.test');
  });
});
