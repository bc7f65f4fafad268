import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the test server received. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: any;
}

/** Answers one request; may write slowly, cut the socket, or never finish. */
export type Handler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

/**
 * A 127.0.0.1 HTTP server that answers each request with the next queued handler and records
 * what it was sent. Speaks whatever the handler writes (OpenAI or Anthropic wire formats).
 */
export class WireServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: Handler[] = [];
  private server!: Server;
  private readonly sockets = new Set<import('node:net').Socket>();
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          /* keep text */
        }
        const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        this.requests.push(recorded);
        const handler = this.queue.shift();
        if (!handler) {
          json(res, 599, { error: { message: 'test server: no handler queued' } });
          return;
        }
        void handler(recorded, res);
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Queues handlers for the next requests, in order. */
  enqueue(...handlers: Handler[]): this {
    this.queue.push(...handlers);
    return this;
  }

  get pending(): number {
    return this.queue.length;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Writes a JSON response. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A handler answering with JSON. */
export function replyJson(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => json(res, status, body, headers);
}

/** One SSE frame; `event` is omitted for OpenAI-style streams. */
export interface SseFrame {
  event?: string;
  data: unknown;
}

/**
 * A handler streaming SSE frames. `cutAfter` destroys the socket after that many frames (a
 * connection lost mid-stream); `stallAfter` stops writing but keeps the connection open.
 */
export function replySse(frames: SseFrame[], options: { cutAfter?: number; stallAfter?: number; done?: boolean } = {}): Handler {
  return async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let i = 0;
    for (const frame of frames) {
      if (options.cutAfter !== undefined && i >= options.cutAfter) {
        await new Promise((r) => setTimeout(r, 5));
        res.socket?.destroy();
        return;
      }
      if (options.stallAfter !== undefined && i >= options.stallAfter) return;
      const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
      res.write(`${frame.event ? `event: ${frame.event}\n` : ''}data: ${data}\n\n`);
      i++;
      // Let frames travel as separate TCP writes so the client sees them one by one.
      if (i % 8 === 0) await new Promise((r) => setImmediate(r));
    }
    if (options.cutAfter !== undefined && i >= options.cutAfter) {
      res.socket?.destroy();
      return;
    }
    if (options.stallAfter !== undefined) return;
    if (options.done ?? true) res.write('data: [DONE]\n\n');
    res.end();
  };
}
