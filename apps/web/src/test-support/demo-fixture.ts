import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDemoWorkspace } from '../server/demo-fixtures.js';
import { startDemo } from '../server/start-demo.js';
import type { RunningDemo, StartDemoOptions } from '../server/start-demo.js';
import type { StreamEvent } from '../shared/protocol.js';

/** A demo on a free 127.0.0.1 port with its own seeded workspace and sessions; `dispose` removes both. */
export async function startTestDemo(options: StartDemoOptions = {}): Promise<RunningDemo & { root: string; errors: unknown[]; dispose(): Promise<void> }> {
  const root = mkdtempSync(join(tmpdir(), 'nanobot-web-test-'));
  const workspace = join(root, 'workspace');
  await seedDemoWorkspace(workspace);
  const errors: unknown[] = [];
  const demo = await startDemo({
    port: 0,
    workspace,
    sessionsDir: join(root, 'sessions'),
    offline: true,
    deltaDelayMs: 2,
    contextWindowTokens: 8192,
    maxTokens: 1024,
    exec: false,
    onError: (error, where) => errors.push({ where, error }),
    ...options,
  });
  return {
    ...demo,
    root,
    errors,
    dispose: async () => {
      await demo.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A raw HTTP answer. */
export interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
  json: unknown;
}

/** One HTTP request with full control over headers and body (fetch would add its own). */
export function rawRequest(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(body);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
      });
    });
    req.on('error', reject);
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

/** POSTs JSON. */
export function postJson(url: string, body: unknown): Promise<RawResponse> {
  return rawRequest(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

/** An open SSE connection: parsed events so far, a wait for a matching event, and a hard hang-up. */
export interface SseClient {
  events: StreamEvent[];
  waitFor(predicate: (event: StreamEvent) => boolean): Promise<StreamEvent>;
  /** Destroys the socket without a clean close, as a crashed tab would. */
  hangUp(): void;
  request: ClientRequest;
}

/** Opens a session's event stream. */
export function openSse(url: string): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const events: StreamEvent[] = [];
    const waiters: { predicate: (e: StreamEvent) => boolean; resolve: (e: StreamEvent) => void }[] = [];
    let buffer = '';
    const req = httpRequest(url, { headers: { Accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`SSE answered ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data) {
            const event = JSON.parse(data.slice(6)) as StreamEvent;
            events.push(event);
            for (const w of waiters.splice(0)) {
              if (w.predicate(event)) w.resolve(event);
              else waiters.push(w);
            }
          }
          cut = buffer.indexOf('\n\n');
        }
      });
      res.on('error', () => undefined);
      resolve({
        events,
        request: req,
        waitFor: (predicate) => {
          const seen = events.find(predicate);
          if (seen) return Promise.resolve(seen);
          return new Promise((r) => waiters.push({ predicate, resolve: r }));
        },
        hangUp: () => req.destroy(),
      });
    });
    // Before the answer this rejects; after it (a hang-up) it is a no-op.
    req.on('error', reject);
    req.end();
  });
}
