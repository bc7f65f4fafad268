// PostgreSQL benchmarks, one run each, printed as ratios:
// 1. messages per second through PostgresMessageBus with 1, 2 and 4 worker processes on a
//    scripted model answering after 50 ms (each worker runs 3 sessions at once);
// 2. latency of appending one message: PostgresSessionStore vs JsonlSessionStore.
// Uses NANOBOT_TEST_DATABASE_URL when set, else an embedded PostgreSQL with fsync on.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { JsonlSessionStore } from '@nanobot/session';
import type { Session, SessionStore } from '@nanobot/session';
import { createTestDatabase, startTestPostgres } from '@nanobot-internal/test-support/postgres';
import { createPool, migrate, PostgresMessageBus, PostgresSessionStore } from '../src/index.js';

const root = resolve(import.meta.dirname, '../../..');
const LATENCY_MS = 50;
const SESSIONS = 24;
const PER_SESSION = 5;

function startWorker(url: string, name: string): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', resolve(import.meta.dirname, '../test/chaos-worker.ts'), url, name, String(LATENCY_MS)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<void>((res, rej) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"event":"ready"')) res();
    });
    child.once('exit', (code) => rej(new Error(`worker ${name} exited ${code}`)));
  });
  return { child, ready };
}

async function throughput(serverUrl: string, workers: number): Promise<number> {
  const url = await createTestDatabase(serverUrl, `bench_w${workers}`);
  const pool = await createPool({ url, max: 4 });
  await migrate(pool);
  const bus = new PostgresMessageBus({ pool, sessions: new PostgresSessionStore({ pool }), outboundPollMs: 100 });
  await bus.ready();
  const procs = Array.from({ length: workers }, (_, i) => startWorker(url, `w${i}`));
  await Promise.all(procs.map((p) => p.ready));
  const total = SESSIONS * PER_SESSION;
  const start = performance.now();
  const publishing = (async () => {
    for (let m = 0; m < PER_SESSION; m += 1) {
      for (let s = 0; s < SESSIONS; s += 1) await bus.publishInboundDurable({ channel: 'bench', chatId: `s${s}`, senderId: 'u', content: `s${s} m${m}` });
    }
  })();
  const signal = AbortSignal.timeout(300_000);
  for (let got = 0; got < total; got += 1) await bus.consumeOutbound(signal, { channel: 'bench' });
  const seconds = (performance.now() - start) / 1000;
  await publishing;
  for (const p of procs) p.child.kill('SIGTERM');
  await Promise.all(procs.map((p) => new Promise((r) => (p.child.exitCode !== null ? r(null) : p.child.once('exit', r)))));
  await bus.close();
  await pool.end();
  return total / seconds;
}

async function appendLatency(store: SessionStore, key: string, rounds: number): Promise<number> {
  const { session } = await store.load(key);
  for (let i = 0; i < 100; i += 1) session.addMessage(i % 2 ? 'assistant' : 'user', `seed ${i}`);
  await store.save(session);
  const once = async (s: Session, i: number): Promise<void> => {
    s.addMessage('user', `follow-up ${i}`);
    await store.save(s);
  };
  for (let i = 0; i < 10; i += 1) await once(session, i);
  const start = performance.now();
  for (let i = 0; i < rounds; i += 1) await once(session, i);
  return (performance.now() - start) / rounds;
}

async function main(): Promise<void> {
  const server = await startTestPostgres({ fsync: true });
  const dir = mkdtempSync(join(tmpdir(), 'nb-bench-pg-'));
  try {
    const rates: number[] = [];
    for (const n of [1, 2, 4]) {
      const rate = await throughput(server.url, n);
      rates.push(rate);
      console.log(`${n} worker(s), model latency ${LATENCY_MS} ms: ${rate.toFixed(1)} messages/s, ratio to 1 worker ${(rate / rates[0]!).toFixed(2)}`);
    }
    const url = await createTestDatabase(server.url, 'bench_append');
    const pool = await createPool({ url, max: 2 });
    await migrate(pool);
    const rounds = 200;
    const pgMs = await appendLatency(new PostgresSessionStore({ pool }), 'bench:append', rounds);
    const jsonlAlways = await appendLatency(new JsonlSessionStore({ dir: join(dir, 'always'), fsync: 'always' }), 'bench:append', rounds);
    const jsonlNever = await appendLatency(new JsonlSessionStore({ dir: join(dir, 'never'), fsync: 'never' }), 'bench:append', rounds);
    console.log(
      `append 1 message: PostgreSQL ${pgMs.toFixed(3)} ms (server fsync ${server.external ? 'as configured' : 'on'}), ` +
        `JSONL fsync=always ${jsonlAlways.toFixed(3)} ms, JSONL fsync=never ${jsonlNever.toFixed(3)} ms; ` +
        `ratio PostgreSQL/JSONL(always) ${(pgMs / jsonlAlways).toFixed(2)}, PostgreSQL/JSONL(never) ${(pgMs / jsonlNever).toFixed(2)}`,
    );
    await pool.end();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
}

await main();
