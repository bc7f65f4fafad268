// PostgreSQL benchmarks, one run each, printed as ratios (`node scripts/bench.mjs postgres`):
// 1. messages per second through worker processes, 3 workers vs 1, at 50 ms and 250 ms model
//    latency (each worker runs 3 sessions at once);
// 2. takeover after a SIGKILL: from the kill of a worker mid-turn to the survivor's model call for
//    that turn, with the default lease, as a ratio to the lease;
// 3. the cost of the fencing checks per append: an append inside a fenced turn vs outside one, and
//    the head statement with and without its lease lookup (what the check adds), vs JSONL.
// Uses NANOBOT_TEST_DATABASE_URL when set, else an embedded PostgreSQL with fsync on.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Pool } from 'pg';
import { JsonlSessionStore } from '@nanobot/session';
import type { Session, SessionStore } from '@nanobot/session';
import { createTestDatabase, startTestPostgres } from '@nanobot-internal/test-support/postgres';
import { createPool, migrate, PostgresMessageBus, PostgresSessionStore } from '../src/index.js';

const root = resolve(import.meta.dirname, '../../..');
const SESSIONS = 24;
const PER_SESSION = 3;

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  /** Called with each model call the worker starts. */
  onCall: ((at: number) => void) | null;
}

function startWorker(url: string, name: string, latencyMs: number): Worker {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', resolve(import.meta.dirname, '../test/chaos-worker.ts'), url, name, String(latencyMs)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const worker: Worker = { child, ready: Promise.resolve(), onCall: null };
  worker.ready = new Promise<void>((res, rej) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"event":"ready"')) res();
      if (line.includes('"event":"call"')) worker.onCall?.(performance.now());
    });
    child.once('exit', (code, signal) => rej(new Error(`worker ${name} exited ${code ?? signal}`)));
  });
  worker.ready.catch(() => undefined);
  return worker;
}

async function stopAll(workers: Worker[]): Promise<void> {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => new Promise((r) => (w.child.exitCode !== null || w.child.signalCode !== null ? r(null) : w.child.once('exit', r)))));
}

async function database(serverUrl: string, name: string): Promise<{ url: string; pool: Pool; bus: PostgresMessageBus }> {
  const url = await createTestDatabase(serverUrl, name);
  const pool = await createPool({ url, max: 12 });
  await migrate(pool);
  const bus = new PostgresMessageBus({ pool, sessions: new PostgresSessionStore({ pool }), outboundPollMs: 100 });
  await bus.ready();
  return { url, pool, bus };
}

async function throughput(serverUrl: string, workers: number, latencyMs: number): Promise<number> {
  const db = await database(serverUrl, `bench_w${workers}_${latencyMs}`);
  const procs = Array.from({ length: workers }, (_, i) => startWorker(db.url, `w${i}`, latencyMs));
  await Promise.all(procs.map((p) => p.ready));
  const total = SESSIONS * PER_SESSION;
  const start = performance.now();
  // Sessions publish in parallel (each in order), and four gateways deliver: neither the
  // publisher nor the consumer should be what is measured.
  const publishing = Promise.all(
    Array.from({ length: SESSIONS }, async (_, s) => {
      for (let m = 0; m < PER_SESSION; m += 1) await db.bus.publishInboundDurable({ channel: 'bench', chatId: `s${s}`, senderId: 'u', content: `s${s} m${m}` });
    }),
  );
  const all = new AbortController();
  const signal = AbortSignal.any([all.signal, AbortSignal.timeout(300_000)]);
  let got = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (got < total) {
        const delivery = await db.bus.consumeOutbound(signal, { channel: 'bench' }).catch(() => null);
        if (!delivery) return;
        await delivery.ack();
        if (++got === total) all.abort();
      }
    }),
  );
  if (got < total) throw new Error(`only ${got} of ${total} answers arrived`);
  const seconds = (performance.now() - start) / 1000;
  await publishing;
  await stopAll(procs);
  await db.bus.close();
  await db.pool.end();
  return total / seconds;
}

/** Milliseconds from SIGKILLing a worker at its model call to the survivor's model call for the same turn. */
async function takeover(serverUrl: string, round: number): Promise<number> {
  const db = await database(serverUrl, `bench_takeover_${round}`);
  const procs = [startWorker(db.url, 'a', 2000), startWorker(db.url, 'b', 2000)];
  await Promise.all(procs.map((p) => p.ready));
  let killedAt = 0;
  const measured = new Promise<number>((resolveTakeover) => {
    for (const p of procs) {
      p.onCall = (at) => {
        if (killedAt === 0) {
          killedAt = performance.now();
          p.child.kill('SIGKILL');
          p.onCall = null;
        } else {
          resolveTakeover(at - killedAt);
        }
      };
    }
  });
  await db.bus.publishInboundDurable({ channel: 'bench', chatId: 'k', senderId: 'u', content: 'who answers' });
  const ms = await measured;
  await (await db.bus.consumeOutbound(AbortSignal.timeout(60_000), { channel: 'bench' })).ack();
  await stopAll(procs);
  await db.bus.close();
  await db.pool.end();
  return ms;
}

async function appendLatency(store: SessionStore, session: Session, rounds: number): Promise<number> {
  const once = async (i: number): Promise<void> => {
    session.addMessage(i % 2 ? 'assistant' : 'user', `follow-up ${i}`);
    await store.save(session);
  };
  for (let i = 0; i < 10; i += 1) await once(i);
  const start = performance.now();
  for (let i = 0; i < rounds; i += 1) await once(i);
  return (performance.now() - start) / rounds;
}

async function seeded(store: SessionStore, key: string): Promise<Session> {
  const { session } = await store.load(key);
  for (let i = 0; i < 100; i += 1) session.addMessage(i % 2 ? 'assistant' : 'user', `seed ${i}`);
  await store.save(session);
  return (await store.load(key)).session;
}

/** The save's head statement with its lease lookup and without it, in transactions like a save's: ms per statement. */
async function headStatement(pool: Pool, key: string, rounds: number): Promise<{ withLease: number; without: number }> {
  const head = (lease: boolean): string => `with ${lease ? `l as (select epoch, (owner is not null and expires_at > now()) as leased from nanobot.leases where session_key = $1 for share),` : ''}
      h as (select meta_version, generation, last_write, (select count(*) from nanobot.messages m where m.session_key = s.key) as rows,
                   (select coalesce(max(seq) + 1, 0) from nanobot.messages m where m.session_key = s.key) as next
              from nanobot.sessions s where key = $1 for update)
    select (select row_to_json(h) from h) as head${lease ? ', (select row_to_json(l) from l) as lease' : ''}`;
  const client = await pool.connect();
  const time = async (lease: boolean): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < rounds; i += 1) {
      await client.query('begin');
      await client.query(head(lease), [key]);
      await client.query('commit');
    }
    return (performance.now() - start) / rounds;
  };
  try {
    // Interleaved halves, so a slow phase of the machine hits both.
    let withLease = 0;
    let without = 0;
    for (let half = 0; half < 2; half += 1) {
      withLease += await time(true);
      without += await time(false);
    }
    return { withLease: withLease / 2, without: without / 2 };
  } finally {
    client.release();
  }
}

async function main(): Promise<void> {
  const server = await startTestPostgres({ fsync: true });
  const dir = mkdtempSync(join(tmpdir(), 'nb-bench-pg-'));
  try {
    for (const latency of [50, 250]) {
      const one = await throughput(server.url, 1, latency);
      const three = await throughput(server.url, 3, latency);
      console.log(`model latency ${latency} ms: 1 worker ${one.toFixed(1)} messages/s, 3 workers ${three.toFixed(1)} messages/s; ratio 3 workers / 1 worker ${(three / one).toFixed(2)}`);
    }

    const lease = 4000;
    const takeovers: number[] = [];
    for (let round = 0; round < 3; round += 1) takeovers.push(await takeover(server.url, round));
    takeovers.sort((a, b) => a - b);
    console.log(
      `takeover after a SIGKILL mid-turn (default lease ${lease} ms, heartbeat ${lease / 4} ms): ${takeovers.map((t) => `${(t / 1000).toFixed(2)} s`).join(', ')}; ` +
        `median ${(takeovers[1]! / 1000).toFixed(2)} s, ratio to the lease ${(takeovers[1]! / lease).toFixed(2)}`,
    );

    const { pool } = await database(server.url, 'bench_append');
    const rounds = 200;
    const store = new PostgresSessionStore({ pool });
    const outside = await appendLatency(store, await seeded(store, 'bench:outside'), rounds);
    await seeded(store, 'bench:turn');
    const turn = await store.beginAttempt('bench:turn', 'bench-inbound', { owner: 'bench', leaseMs: 600_000 });
    const inTurn = await appendLatency(store, (await store.load('bench:turn')).session, rounds);
    store.endAttempt(turn);
    const statement = await headStatement(pool, 'bench:outside', rounds);
    const always = new JsonlSessionStore({ dir: join(dir, 'always'), fsync: 'always' });
    const jsonlAlways = await appendLatency(always, await seeded(always, 'bench:a'), rounds);
    const never = new JsonlSessionStore({ dir: join(dir, 'never'), fsync: 'never' });
    const jsonlNever = await appendLatency(never, await seeded(never, 'bench:n'), rounds);
    console.log(
      `append 1 message: in a fenced turn ${inTurn.toFixed(3)} ms, outside a turn ${outside.toFixed(3)} ms (ratio ${(inTurn / outside).toFixed(2)}); ` +
        `the lease lookup in the save's head statement: ${statement.withLease.toFixed(3)} vs ${statement.without.toFixed(3)} ms without (ratio ${(statement.withLease / statement.without).toFixed(2)}, ` +
        `${(((statement.withLease - statement.without) / inTurn) * 100).toFixed(1)}% of an append; no extra round trip)`,
    );
    console.log(
      `append 1 message: PostgreSQL ${outside.toFixed(3)} ms (server fsync ${server.external ? 'as configured' : 'on'}), JSONL fsync=always ${jsonlAlways.toFixed(3)} ms, JSONL fsync=never ${jsonlNever.toFixed(3)} ms; ` +
        `ratio PostgreSQL/JSONL(always) ${(outside / jsonlAlways).toFixed(2)}, PostgreSQL/JSONL(never) ${(outside / jsonlNever).toFixed(2)}`,
    );
    await pool.end();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
}

await main();
