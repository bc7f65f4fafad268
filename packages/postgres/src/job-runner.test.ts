import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Pool } from 'pg';
import type { PostgresBusEvent } from './bus-events.js';
import { createPool } from './create-pool.js';
import { PostgresMessageBus } from './postgres-message-bus.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { freshDatabase } from './test-support/pg-test-env.js';
import { eventually } from './test-support/eventually.js';
import { scriptedAnswer, startTestWorker } from './test-support/scripted-worker.js';

let url: string;
let pool: Pool;

beforeAll(async () => {
  ({ url, pool } = await freshDatabase('job_runner_test'));
  await new PostgresMessageBus({ pool, sessions: new PostgresSessionStore({ pool }), onLog: () => undefined }).ready();
});
afterAll(async () => {
  await pool.end();
});

it("a runner whose job lookups keep failing while the database answers is replaced (graphile-worker caches a failed first task lookup)", async () => {
  // The worker's first task lookup waits for a lock longer than its lock_timeout and fails —
  // not a connection failure, so nothing retries it, and graphile-worker 0.16.6 (like 0.17 and
  // 0.18) answers every later lookup of that runner with the same failure.
  const blocker = await pool.connect();
  await blocker.query('begin; lock table graphile_worker._private_tasks in access exclusive mode');
  const impatient = new URL(url);
  impatient.searchParams.set('options', '-c lock_timeout=500');
  const workerPool = await createPool({ url: impatient.toString() });
  const events: PostgresBusEvent[] = [];
  const logs: string[] = [];
  const worker = await startTestWorker(workerPool, { bus: { onLog: (level, message) => logs.push(`${level} ${message}`) } });
  worker.bus.onEvent((event) => events.push(event));
  const client = new PostgresMessageBus({ pool, sessions: new PostgresSessionStore({ pool }), outboundPollMs: 100, onLog: () => undefined });
  try {
    await eventually('failed job lookups', () => worker.bus.health().pollErrors >= 2);
    expect(worker.bus.health()).toMatchObject({ status: 'degraded', jobsTaken: 0 });
    // The lock goes away; the runner that cached the failure would stay deaf for ever.
    await blocker.query('commit');
    const id = await client.publishInboundDurable({ channel: 'deaf', chatId: '1', senderId: 'u', content: 'anyone there?' });
    expect((await client.awaitTurn(id, AbortSignal.timeout(60_000))).map((m) => m.content)).toEqual([scriptedAnswer('anyone there?')]);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['runner_deaf', 'runner_failed', 'runner_started']));
    await eventually('the worker to report ok', () => worker.bus.health().status === 'ok');
    expect(worker.bus.health().runnerRunning).toBe(true);
    expect(worker.bus.health().runnerStarts).toBeGreaterThanOrEqual(2);
    // graphile-worker's own lines came through the bus's logger.
    expect(logs.some((l) => l.includes('graphile-worker: Failed to acquire job'))).toBe(true);
  } finally {
    await blocker.query('rollback').catch(() => undefined);
    blocker.release();
    await worker.stop();
    await client.close();
    await workerPool.end();
  }
});
