// The 127.0.0.1 HTTP server every provider stand-in is built on: routes by method and path,
// records each request with the violations its checker found, answers from a queue of scripted
// replies (or raw handlers for misbehaviour: 429, 500, cut streams), and stops cleanly.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttp2Server } from 'node:http2';
import type { Http2Server } from 'node:http2';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { Duplex } from 'node:stream';
import type { WireViolation } from './wire-rule.js';
import type { ScriptedReply } from './scripted-reply.js';
import { DEFAULT_REPLY } from './scripted-reply.js';

/** One request a server received, as recorded. */
export interface WireRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body (the raw text when it is not JSON; `undefined` when empty). */
  body: unknown;
  /** The route that took it (`converse`, `chat.completions`, …; `unknown` when none did). */
  route: string;
  /** Path parameters of the route (`model`, `deployment`, …). */
  params: Record<string, string>;
  /** Every rule the body breaks (filled by the route's checker; empty for routes without one). */
  violations: WireViolation[];
  /** Status the server answered with. */
  status?: number;
}

/**
 * Answers one request by hand. Contract: may write anything (slowly, partially, never); the
 * server awaits it; it is not checked against the rules (queue it to test retries and faults).
 */
export type RawHandler = (req: WireRequest, res: ServerResponse) => void | Promise<void>;

/** What can be queued: a scripted answer (checked against the rules first) or a raw handler. */
export type QueuedReply = ScriptedReply | RawHandler;

/** One route of a server. Contract: `handle` is awaited and must end the response. */
export interface WireRoute {
  method: string;
  /** Matched against the path; named groups become `params`. */
  pattern: RegExp;
  name: string;
  handle(req: WireRequest, res: ServerResponse, server: WireServer): void | Promise<void>;
}

/** Writes a JSON response. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * A local server speaking one provider's wire format. Start it, point the real SDK at `url`,
 * read `requests` afterwards. Replies come from the queue (`enqueue`), else `defaultReply`.
 */
export class WireServer {
  /** Every request received, in order. */
  readonly requests: WireRequest[] = [];
  /** Base URL once started (`http://127.0.0.1:<port>`). */
  url = '';
  /** The reply when the queue is empty. */
  defaultReply: ScriptedReply = DEFAULT_REPLY;
  private readonly queue: QueuedReply[] = [];
  private seq = 0;
  private server: NetServer | undefined;
  private http1: Server | undefined;
  private http2: Http2Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    /** The provider this server stands in for (for messages). */
    readonly provider: string,
    private readonly routes: readonly WireRoute[],
    private readonly notFound: (req: WireRequest, res: ServerResponse) => void,
  ) {}

  /**
   * Listens on an ephemeral port of 127.0.0.1, speaking HTTP/1.1 and cleartext HTTP/2 (prior
   * knowledge) on the same port: fetch-based clients use the first, the AWS SDK's Bedrock
   * runtime client the second.
   */
  async start(): Promise<this> {
    const handler = (req: IncomingMessage, res: ServerResponse): void => this.receive(req, res);
    this.http1 = createServer(handler);
    this.http2 = createHttp2Server(handler as never);
    this.server = createNetServer((socket) => {
      // Headers and body leave as separate writes; without this, Nagle and delayed ACKs add ~40 ms each.
      socket.setNoDelay(true);
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.once('data', (first: Buffer) => {
        socket.pause();
        // The HTTP/2 connection preface starts "PRI * HTTP/2.0". Both parsers would read the
        // socket's handle directly (past bytes already read), so each gets a replaying stream.
        const server = first.subarray(0, 3).toString('latin1') === 'PRI' ? this.http2! : this.http1!;
        server.emit('connection', replaying(socket, first));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Queues replies for the next legal requests, in order. */
  enqueue(...replies: QueuedReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Replies still queued. */
  get pending(): number {
    return this.queue.length;
  }

  /** The head of the queue if it is a raw handler (taken), else undefined. */
  takeRawHandler(): RawHandler | undefined {
    if (typeof this.queue[0] !== 'function') return undefined;
    return this.queue.shift() as RawHandler;
  }

  /** The next scripted reply (taken from the queue, else the default). */
  takeReply(): ScriptedReply {
    if (this.queue.length > 0 && typeof this.queue[0] !== 'function') return this.queue.shift() as ScriptedReply;
    return this.defaultReply;
  }

  /** The next number of this server's id sequence (ids of calls, messages, items it answers with). */
  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  /** Requests whose body broke at least one rule. */
  get rejected(): WireRequest[] {
    return this.requests.filter((r) => r.violations.length > 0);
  }

  /** Forgets recorded requests (between measurements). */
  clear(): void {
    this.requests.length = 0;
  }

  /** Closes every connection and the server. */
  async stop(): Promise<void> {
    if (!this.server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.http2?.close();
    this.http1?.close();
    this.server = undefined;
  }

  private receive(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = undefined;
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const recorded: WireRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body, route: 'unknown', params: {}, violations: [] };
      this.requests.push(recorded);
      const origWriteHead = res.writeHead.bind(res);
      res.writeHead = ((status: number, ...rest: unknown[]) => {
        recorded.status = status;
        return (origWriteHead as (...a: unknown[]) => ServerResponse)(status, ...rest);
      }) as typeof res.writeHead;
      void this.dispatch(recorded, res).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: `provider-wire ${this.provider} server failed: ${String(error)}` } });
        else res.destroy();
      });
    });
  }

  private async dispatch(req: WireRequest, res: ServerResponse): Promise<void> {
    for (const route of this.routes) {
      if (route.method !== req.method) continue;
      const m = route.pattern.exec(req.path);
      if (!m) continue;
      req.route = route.name;
      req.params = { ...(m.groups ?? {}) };
      for (const [k, v] of Object.entries(req.params)) req.params[k] = decodeURIComponent(v);
      await route.handle(req, res, this);
      return;
    }
    this.notFound(req, res);
  }
}

/** A duplex over `socket` that first yields `first` (bytes already read from it). */
function replaying(socket: Socket, first: Buffer): Duplex {
  const stream = new Duplex({
    read: () => void socket.resume(),
    write: (chunk: Buffer, _enc, done) => void socket.write(chunk, done),
    final: (done) => {
      socket.end();
      done();
    },
    destroy: (error, done) => {
      socket.destroy(error ?? undefined);
      done(error);
    },
  });
  stream.push(first);
  socket.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause();
  });
  socket.on('end', () => stream.push(null));
  socket.on('error', (error) => stream.destroy(error));
  socket.on('close', () => stream.destroy());
  socket.resume();
  return stream;
}

/** Writes one server-sent event (`event:` line only when given) and yields so frames travel apart. */
export async function writeSse(res: ServerResponse, data: unknown, event?: string): Promise<void> {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  await new Promise((r) => setImmediate(r));
}

/** Starts an SSE response. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}
