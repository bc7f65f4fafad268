import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import type { ErrorBody, ServerInfo, StreamEvent } from '../shared/protocol.js';
import { isValidSessionKey } from './agent-host.js';
import type { AgentHost } from './agent-host.js';
import { HttpError } from './http-error.js';
import { readJsonBody } from './read-json-body.js';

/** Options of {@link createWebServer}. */
export interface WebServerOptions {
  host: AgentHost;
  /** The built page (vite's output: index.html and assets/). */
  clientDir: string;
  info: ServerInfo;
  /**
   * `GET /api/providers`: the registry as the server's configuration sees it (`listProviders` of
   * @nanobot/providers: each provider, its key variable and base URL, the configured ones, the
   * one chosen). Called per request; must not throw. Absent: 404.
   */
  providers?: () => unknown;
  /** Longest accepted chat message in characters (default 20000). */
  maxTextChars?: number;
  /** A slow SSE client whose unsent data exceeds this is disconnected (it reconnects). Default 4 MiB. */
  maxBufferedBytes?: number;
  /** SSE keep-alive comment interval (default 15 s). */
  keepAliveMs?: number;
  /** Unexpected errors while answering. Called, not awaited; must not throw. */
  onError?: (error: unknown) => void;
}

/** Options of {@link startWebServer}. */
export interface StartWebServerOptions extends WebServerOptions {
  /** Port (0: any free port). Default 8765. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1 (only this machine can connect). */
  hostname?: string;
}

/** A listening server. */
export interface RunningWebServer {
  server: Server;
  url: string;
  port: number;
  /** Closes open connections (SSE streams included) and the server. */
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
};
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}

function sendError(res: ServerResponse, error: HttpError): void {
  for (const [k, v] of Object.entries(error.headers)) if (!res.headersSent) res.setHeader(k, v);
  const body: ErrorBody = { error: { code: error.code, message: error.message } };
  sendJson(res, error.status, body);
}

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  const colon = hostHeader.lastIndexOf(':');
  return colon >= 0 ? hostHeader.slice(0, colon) : hostHeader;
}

/**
 * The demo's HTTP server (plain node:http): the built page, a small JSON API, one SSE stream per
 * open session, and offloaded tool results. Every refusal is a 4xx JSON body
 * `{ error: { code, message } }`; nothing a bad request sends reaches a session. When bound to
 * loopback it only answers requests addressed to a loopback host name (DNS-rebinding guard) and
 * refuses cross-origin POSTs.
 */
export function createWebServer(options: WebServerOptions, bound: () => { hostname: string } = () => ({ hostname: '127.0.0.1' })): Server {
  const { host } = options;
  const maxText = options.maxTextChars ?? 20_000;
  const maxBuffered = options.maxBufferedBytes ?? 4 * 1024 * 1024;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const clientDir = resolve(options.clientDir);

  function guard(req: IncomingMessage): void {
    const hostHeader = req.headers.host ?? '';
    if (LOOPBACK_HOSTS.has(bound().hostname) && !LOOPBACK_HOSTS.has(hostnameOf(hostHeader))) {
      throw new HttpError(421, 'WRONG_HOST', `This server only answers requests addressed to localhost, not "${hostHeader}".`);
    }
    const origin = req.headers.origin;
    if (req.method !== 'GET' && req.method !== 'HEAD' && origin !== undefined && origin !== 'null') {
      let originHost = '';
      try {
        originHost = new URL(origin).host;
      } catch {
        // unparsable origin: refused below
      }
      if (originHost !== hostHeader) throw new HttpError(403, 'CROSS_ORIGIN', 'Cross-origin requests are refused.');
    }
  }

  function openStream(req: IncomingMessage, res: ServerResponse, key: string): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 1500\n\n');
    let closed = false;
    const write = (event: StreamEvent): void => {
      if (closed || res.destroyed || res.writableEnded) return;
      res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      // A client that stopped reading is dropped rather than buffered forever; EventSource
      // reconnects and starts again from a fresh snapshot.
      if (res.writableLength > maxBuffered) res.destroy();
    };
    // Subscribe first, then snapshot: events in between are delivered after the snapshot and
    // are at worst repeated by it, never lost.
    const queued: StreamEvent[] = [];
    let ready = false;
    const unsubscribe = host.subscribe(key, (event) => (ready ? write(event) : queued.push(event)));
    const timer = setInterval(() => {
      if (!closed && !res.destroyed) res.write(': keep-alive\n\n');
    }, keepAliveMs);
    timer.unref();
    const cleanup = (): void => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      unsubscribe();
    };
    req.on('close', cleanup);
    res.on('close', cleanup);
    res.on('error', cleanup);
    host.view(key).then(
      (session) => {
        write({ type: 'snapshot', session });
        ready = true;
        for (const event of queued.splice(0)) write(event);
      },
      (error: unknown) => {
        options.onError?.(error);
        ready = true;
        write({ type: 'notice', text: `Could not load the session: ${(error as Error).message}` });
      },
    );
  }

  async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      throw new HttpError(400, 'BAD_PATH', 'The path is not valid percent-encoding.');
    }
    const relative = decoded === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
    const file = resolve(clientDir, relative);
    if (file !== clientDir && !file.startsWith(clientDir + sep)) throw new HttpError(404, 'NOT_FOUND', 'No such file.');
    let target = file;
    let info = await stat(target).catch(() => null);
    if (!info?.isFile() && !extname(relative)) {
      // Client-side routes fall back to the page.
      target = join(clientDir, 'index.html');
      info = await stat(target).catch(() => null);
    }
    if (!info?.isFile()) {
      if (relative === 'index.html') throw new HttpError(500, 'CLIENT_NOT_BUILT', `The page is not built (no ${target}); run the app's build first.`);
      throw new HttpError(404, 'NOT_FOUND', 'No such file.');
    }
    res.writeHead(200, {
      'Content-Type': CONTENT_TYPES[extname(target)] ?? 'application/octet-stream',
      'Content-Length': info.size,
      'Cache-Control': target.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(target).on('error', () => res.destroy()).pipe(res);
  }

  function sessionKeyFrom(raw: string): string {
    let key: string;
    try {
      key = decodeURIComponent(raw);
    } catch {
      throw new HttpError(400, 'INVALID_SESSION_KEY', 'The session key is not valid percent-encoding.');
    }
    if (!isValidSessionKey(key)) throw new HttpError(400, 'INVALID_SESSION_KEY', 'A session key is 1–128 characters: letters, digits, ":", ".", "_" or "-".');
    return key;
  }

  function allow(req: IncomingMessage, methods: string[]): void {
    if (!methods.includes(req.method ?? '')) throw new HttpError(405, 'METHOD_NOT_ALLOWED', `Use ${methods.join(' or ')} here.`, { headers: { Allow: methods.join(', ') } });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    guard(req);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (!path.startsWith('/api/')) {
      allow(req, ['GET', 'HEAD']);
      await serveStatic(req, res, path);
      return;
    }
    if (path === '/api/info') {
      allow(req, ['GET']);
      sendJson(res, 200, options.info);
      return;
    }
    if (path === '/api/providers' && options.providers) {
      allow(req, ['GET']);
      sendJson(res, 200, options.providers());
      return;
    }
    if (path === '/api/sessions') {
      allow(req, ['GET', 'POST']);
      if (req.method === 'GET') {
        sendJson(res, 200, { sessions: await host.list() });
        return;
      }
      const body = await readJsonBody(req);
      if (body.title !== undefined && (typeof body.title !== 'string' || body.title.length > 200)) throw new HttpError(400, 'INVALID_TITLE', '"title" must be a string of at most 200 characters.');
      sendJson(res, 201, { key: await host.createSession(body.title as string | undefined) });
      return;
    }
    if (path === '/api/sessions/prepared') {
      allow(req, ['POST']);
      await readJsonBody(req);
      sendJson(res, 201, { key: await host.createPreparedSession() });
      return;
    }
    const artifact = /^\/api\/artifacts\/([a-f0-9]{24})$/.exec(path);
    if (artifact) {
      allow(req, ['GET']);
      const body = host.artifact(artifact[1]);
      if (body === undefined) throw new HttpError(404, 'ARTIFACT_NOT_FOUND', 'No offloaded result with that id (they are known only to the server that offloaded them).');
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
      res.end(body);
      return;
    }
    const match = /^\/api\/sessions\/([^/]+)(?:\/(events|messages|stop))?$/.exec(path);
    if (!match) throw new HttpError(404, 'NOT_FOUND', `No API route ${path}.`);
    const key = sessionKeyFrom(match[1]);
    switch (match[2]) {
      case undefined:
        allow(req, ['GET']);
        sendJson(res, 200, await host.view(key));
        return;
      case 'events':
        allow(req, ['GET']);
        openStream(req, res, key);
        return;
      case 'stop':
        allow(req, ['POST']);
        await readJsonBody(req);
        sendJson(res, 202, { stopping: true, stopped: host.stop(key) });
        return;
      default: {
        allow(req, ['POST']);
        const body = await readJsonBody(req);
        const text = body.text;
        if (typeof text !== 'string') throw new HttpError(400, 'INVALID_TEXT', '"text" must be a string.');
        if (text.trim() === '') throw new HttpError(400, 'EMPTY_TEXT', '"text" is empty.');
        if (text.length > maxText) throw new HttpError(413, 'TEXT_TOO_LONG', `"text" is over ${maxText} characters.`);
        host.send(key, text);
        sendJson(res, 202, { accepted: true });
      }
    }
  }

  return createServer((req, res) => {
    res.on('error', (error) => options.onError?.(error));
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) {
        sendError(res, error);
        return;
      }
      options.onError?.(error);
      sendError(res, new HttpError(500, 'INTERNAL_ERROR', 'The server failed to answer this request; it is still running.'));
    });
  });
}

/** Creates the server and listens (default 127.0.0.1:8765). */
export async function startWebServer(options: StartWebServerOptions): Promise<RunningWebServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  const server = createWebServer(options, () => ({ hostname }));
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8765, hostname, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    port: address.port,
    url: `http://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
