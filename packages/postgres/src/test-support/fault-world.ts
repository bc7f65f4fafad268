import { expect } from 'vitest';
import type { Pool } from 'pg';
import { checkLegality } from '@nanobot/governor';
import type { OutboundMessage } from '@nanobot/runner';
import type { LLMRequest, Message } from '@nanobot/schema';
import { createTestDatabase } from '@nanobot-internal/test-support/postgres';
import { createPool } from '../create-pool.js';
import { migrate } from '../migrations.js';
import { PostgresMessageBus } from '../postgres-message-bus.js';
import type { PostgresMessageBusOptions } from '../postgres-message-bus.js';
import { PostgresSessionStore } from '../postgres-session-store.js';
import { startCuttableProxy } from './cuttable-proxy.js';
import type { CuttableProxy } from './cuttable-proxy.js';
import { scriptedAnswer, startTestWorker } from './scripted-worker.js';
import type { TestWorker } from './scripted-worker.js';
import { installTurnAudit, turnOverlaps } from './turn-audit.js';
import { retryOnConnectionError } from './retry-connection.js';

/** Worker settings of the fault tests: a short lease, so takeovers happen within seconds. */
export const FAULT_BUS: Partial<PostgresMessageBusOptions> = { lockTimeoutMs: 2000, heartbeatMs: 250, pollIntervalMs: 200, outboundPollMs: 100, visibilityTimeoutMs: 1500 };

/** A worker whose every connection goes through its own proxy (so it alone can be cut off). */
export interface ProxiedWorker {
  name: string;
  proxy: CuttableProxy;
  pool: Pool;
  worker: TestWorker;
  /** Heals its proxy, stops the worker, ends its pool, closes the proxy. */
  stop(): Promise<void>;
}

/** One test's database, its publisher/gateway, its workers, and the invariant checks. */
export interface FaultWorld {
  url: string;
  /** Direct connections (the gateway's and the assertions'). */
  pool: Pool;
  client: PostgresMessageBus;
  workers: ProxiedWorker[];
  /** Answers delivered (and acknowledged) by {@link collect}, in delivery order. */
  delivered: OutboundMessage[];
  /** Starts a worker behind its own proxy; `beforeStart` may arm faults on the proxy first. */
  startWorker(
    name: string,
    options?: { onCall?: (request: LLMRequest) => void | Promise<void>; bus?: Partial<PostgresMessageBusOptions>; beforeStart?: (proxy: CuttableProxy) => void },
  ): Promise<ProxiedWorker>;
  publish(chat: string, content: string): Promise<string>;
  /** Takes `n` answers of `chat`, acknowledging each. */
  collect(chat: string, n: number): Promise<OutboundMessage[]>;
  /** Every invariant of the issue, for `expected` contents per chat (in publish order). */
  verify(expected: Record<string, string[]>): Promise<void>;
  close(): Promise<void>;
}

/** The last user message of a request (what the scripted model answers). */
export function lastUserText(request: LLMRequest): string {
  const users = request.messages.filter((m: Message) => m.role === 'user' && typeof m.content === 'string');
  return String(users.at(-1)?.content ?? '');
}


/** A fresh database `name` on `serverUrl` with the audit triggers, and a publisher/gateway. */
export async function startFaultWorld(serverUrl: string, name: string): Promise<FaultWorld> {
  const url = await createTestDatabase(serverUrl, name);
  const pool = await createPool({ url, applicationName: 'test-client' });
  await migrate(pool);
  const client = new PostgresMessageBus({ pool, sessions: new PostgresSessionStore({ pool }), ...FAULT_BUS, onLog: () => undefined });
  await client.ready();
  await installTurnAudit(pool);
  const target = new URL(url);
  const world: FaultWorld = {
    url,
    pool,
    client,
    workers: [],
    delivered: [],
    async startWorker(workerName, options = {}) {
      const proxy = await startCuttableProxy(target.hostname, Number(target.port));
      const workerPool = await createPool({ url: proxy.urlFor(url), applicationName: `worker-${workerName}`, max: 8 });
      options.beforeStart?.(proxy);
      const worker = await startTestWorker(workerPool, {
        tag: workerName,
        ...(options.onCall ? { onCall: options.onCall } : {}),
        bus: { ...FAULT_BUS, ...(process.env.FAULT_DEBUG ? { onLog: (l: string, m: string) => console.log(workerName, l, m), onError: (e: unknown, c: { stage: string }) => console.log(workerName, 'ERR', c.stage, String(e)) } : {}), ...options.bus },
        store: { idleTransactionTimeoutMs: 1000 },
      });
      const proxied: ProxiedWorker = {
        name: workerName,
        proxy,
        pool: workerPool,
        worker,
        async stop() {
          proxy.heal();
          proxy.accept();
          await worker.stop();
          await workerPool.end().catch(() => undefined);
          await proxy.close();
        },
      };
      world.workers.push(proxied);
      return proxied;
    },
    publish(chat, content) {
      return retryOnConnectionError(() => client.publishInboundDurable({ channel: 'fault', chatId: chat, senderId: 'u', content }));
    },
    async collect(chat, n) {
      const out: OutboundMessage[] = [];
      const signal = AbortSignal.timeout(90_000);
      while (out.length < n) {
        const delivery = await client.consumeOutbound(signal, { channel: 'fault', chatId: chat });
        await retryOnConnectionError(() => delivery.ack());
        out.push(delivery);
        world.delivered.push(delivery);
      }
      return out;
    },
    async verify(expected) {
      await verifyDelivery({ pool, channel: 'fault', delivered: world.delivered, expected });
    },
    async close() {
      for (const w of world.workers) await w.stop().catch(() => undefined);
      await client.close();
      await pool.end();
    },
  };
  return world;
}

/**
 * The invariants of the issue for `expected` contents per chat of `channel` (in publish order),
 * `delivered` being what the test's gateway acknowledged: every message answered exactly once,
 * in order; every outbound row acknowledged and every inbound message processed; each history
 * holds each message and its answer once, legal to continue, its answers the ones delivered; no
 * turn overlapped on two workers (writers named `worker-…`).
 */
export async function verifyDelivery(world: { pool: Pool; channel: string; delivered: readonly OutboundMessage[]; expected: Record<string, string[]> }): Promise<void> {
  const { pool, channel, delivered, expected } = world;
  // Anything late (a duplicate answer, a stale write) would land within a moment.
  await new Promise((r) => setTimeout(r, 1500));
  const store = new PostgresSessionStore({ pool });
  for (const [chat, contents] of Object.entries(expected)) {
    const answers = delivered.filter((m) => m.chatId === chat);
    expect(answers.map((m, i) => m.content.startsWith(scriptedAnswer(contents[i] ?? '\u0000')))).toEqual(contents.map(() => true));
    const rows = await pool.query<{ n: string; open: string }>(
      `select count(*) as n, count(*) filter (where delivered_at is null) as open from nanobot.outbound where channel = $1 and chat_id = $2`,
      [channel, chat],
    );
    expect(Number(rows.rows[0]!.n)).toBe(contents.length);
    expect(Number(rows.rows[0]!.open)).toBe(0);
    const { session } = await store.load(`${channel}:${chat}`);
    expect(session.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(contents);
    const finals = session.messages.filter((m) => m.role === 'assistant' && !(Array.isArray(m.tool_calls) && m.tool_calls.length > 0));
    expect(finals.map((m) => m.content)).toEqual(answers.map((m) => m.content));
    expect(checkLegality(session.messages, { target: 'any', continuation: true })).toEqual([]);
  }
  const unprocessed = await pool.query<{ n: string }>(`select count(*) as n from nanobot.inbound where processed_at is null`);
  expect(Number(unprocessed.rows[0]!.n)).toBe(0);
  expect(await turnOverlaps(pool, 'worker-')).toEqual([]);
}
