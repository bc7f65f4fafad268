import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Pool } from 'pg';
import { checkLegality } from '@nanobot/governor';
import type { OutboundMessage } from '@nanobot/runner';
import { createTestDatabase, startTestPostgres } from '@nanobot-internal/test-support/postgres';
import type { TestPostgres } from '@nanobot-internal/test-support/postgres';
import { createPool } from './create-pool.js';
import { PostgresConnectionError } from './errors.js';
import { migrate } from './migrations.js';
import { PostgresMessageBus } from './postgres-message-bus.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { scriptedAnswer } from './test-support/scripted-worker.js';

const SESSIONS = 40;
const PER_SESSION = 10;
const TOTAL = SESSIONS * PER_SESSION;
const root = resolve(import.meta.dirname, '../../..');

interface WorkerProcess {
  name: string;
  child: ChildProcess;
  calls: number;
  rollbacks: number;
  errors: string[];
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
let server: TestPostgres | null = null;
let pool: Pool | null = null;

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await pool?.end().catch(() => undefined);
  await server?.stop();
});

function spawnWorker(url: string, name: string, onCall: (w: WorkerProcess) => void): WorkerProcess {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', resolve(import.meta.dirname, '../test/chaos-worker.ts'), url, name], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let markReady!: () => void;
  const worker: WorkerProcess = {
    name,
    child,
    calls: 0,
    rollbacks: 0,
    errors: [],
    ready: new Promise((r) => (markReady = r)),
    exited: new Promise((r) => child.once('exit', (code, signal) => r({ code, signal }))),
  };
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  void worker.exited.then(({ code, signal }) => {
    if (code !== 0 && signal === null) worker.errors.push(`exited ${code}: ${stderr.join('').slice(-2000)}`);
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let event: { event?: string; message?: string; stage?: string };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      return;
    }
    if (event.event === 'ready') markReady();
    if (event.event === 'rollback') worker.rollbacks += 1;
    if (event.event === 'error') worker.errors.push(`${event.stage}: ${event.message}`);
    if (event.event === 'call') {
      worker.calls += 1;
      onCall(worker);
    }
  });
  return worker;
}

async function retrying<T>(fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if (!(error instanceof PostgresConnectionError)) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

it(
  'chaos: 3 workers, 40 sessions, 400 messages, one worker SIGKILLed mid-turn and the server restarted: every message answered exactly once, in order, legal histories',
  async () => {
    server = await startTestPostgres({ useEnvironment: false });
    const url = await createTestDatabase(server.url, 'chaos');
    pool = await createPool({ url, max: 4 });
    await migrate(pool);
    const sessions = new PostgresSessionStore({ pool });
    const client = new PostgresMessageBus({ pool, sessions, outboundPollMs: 200 });
    await client.ready();

    let killed = null as { worker: string; afterCalls: number } | null;
    const victimCallsBeforeKill = 25;
    const workers = ['w0', 'w1', 'w2'].map((name) =>
      spawnWorker(url, name, (w) => {
        // Killed right as it starts a model call: the worker is mid-turn, its user row saved.
        if (w.name === 'w0' && killed === null && w.calls >= victimCallsBeforeKill) {
          killed = { worker: w.name, afterCalls: w.calls };
          w.child.kill('SIGKILL');
        }
      }),
    );
    await Promise.all(workers.map((w) => Promise.race([w.ready, w.exited.then(() => Promise.reject(new Error(`${w.name} died: ${w.errors.join('\n')}`)))])));

    const expected = new Map<string, string[]>();
    for (let s = 0; s < SESSIONS; s += 1) expected.set(`s${s}`, []);
    const publishing = (async () => {
      for (let m = 0; m < PER_SESSION; m += 1) {
        for (let s = 0; s < SESSIONS; s += 1) {
          const content = `s${s} m${m}${(s + m) % 4 === 0 ? ' tool' : ''}`;
          expected.get(`s${s}`)!.push(content);
          await retrying(() => client.publishInboundDurable({ channel: 'chaos', chatId: `s${s}`, senderId: 'u', content, metadata: { idempotency_key: `s${s}-m${m}` } }));
        }
      }
    })();

    const received: OutboundMessage[] = [];
    let restarted = false;
    const deadline = AbortSignal.timeout(100_000);
    while (received.length < TOTAL && !deadline.aborted) {
      const message = await client.consumeOutbound(deadline, { channel: 'chaos' }).catch(() => null);
      if (!message) break;
      await retrying(() => message.ack());
      received.push(message);
      if (!restarted && received.length === 150) {
        restarted = true;
        await server.halt();
        await new Promise((r) => setTimeout(r, 1000));
        await server.resume();
      }
    }
    await publishing;
    // What the run went through (the assertions above hold either way).
    console.log(
      `chaos: killed ${killed?.worker} at its model call ${killed?.afterCalls}; server restarted after 150 replies; ` +
        workers.map((w) => `${w.name}: ${w.calls} model calls, ${w.rollbacks} turns rolled back, ${w.errors.length} errors${w.errors.length ? ` (${w.errors.slice(0, 8).join(' | ')})` : ''}`).join('; '),
    );
    expect(killed).not.toBeNull();
    expect(restarted).toBe(true);
    // The killed worker had saved its turn's user row before its model call: someone rolled it back.
    expect(workers.reduce((n, w) => n + w.rollbacks, 0)).toBeGreaterThanOrEqual(1);
    expect((await workers[0]!.exited).signal).toBe('SIGKILL');
    expect(received.length).toBe(TOTAL);

    // Anything late (a duplicate) would show up in the table within a moment.
    await new Promise((r) => setTimeout(r, 1500));
    for (const w of workers.slice(1)) w.child.kill('SIGTERM');
    for (const w of workers.slice(1)) expect((await w.exited).code).toBe(0);
    const outboundRows = await pool.query<{ n: string; undelivered: string }>(`select count(*) as n, count(*) filter (where delivered_at is null) as undelivered from nanobot.outbound`);
    expect(Number(outboundRows.rows[0]!.n)).toBe(TOTAL);
    expect(Number(outboundRows.rows[0]!.undelivered)).toBe(0);
    const unprocessed = await pool.query<{ n: string }>(`select count(*) as n from nanobot.inbound where processed_at is null`);
    expect(Number(unprocessed.rows[0]!.n)).toBe(0);

    for (const [chat, contents] of expected) {
      // Delivered to the right chat, exactly once each, in the session's order.
      const replies = received.filter((m) => m.chatId === chat);
      expect(replies.map((m) => m.content)).toEqual(contents.map(scriptedAnswer));
      expect(replies.every((m) => m.sessionKey === `chaos:${chat}`)).toBe(true);
      // History: every message and its answer once, nothing lost or duplicated, legal.
      const { session } = await sessions.load(`chaos:${chat}`);
      expect(session.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(contents);
      const finals = session.messages.filter((m) => m.role === 'assistant' && !m.tool_calls);
      expect(finals.map((m) => m.content)).toEqual(contents.map(scriptedAnswer));
      expect(checkLegality(session.messages, { target: 'any', continuation: true })).toEqual([]);
    }
    for (const w of workers.slice(1)) expect(w.errors.filter((e) => e.startsWith('exited'))).toEqual([]);
  },
  180_000,
);
