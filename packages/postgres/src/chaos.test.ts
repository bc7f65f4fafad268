import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Pool } from 'pg';
import type { OutboundMessage } from '@nanobot/runner';
import { runs } from '@nanobot-internal/test-support';
import { createTestDatabase, startTestPostgres } from '@nanobot-internal/test-support/postgres';
import type { TestPostgres } from '@nanobot-internal/test-support/postgres';
import type { PostgresBusHealth } from './bus-events.js';
import { createPool } from './create-pool.js';
import { migrate } from './migrations.js';
import { PostgresMessageBus } from './postgres-message-bus.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { startCuttableProxy } from './test-support/cuttable-proxy.js';
import type { CuttableProxy } from './test-support/cuttable-proxy.js';
import { verifyDelivery } from './test-support/fault-world.js';
import { scriptedAnswer } from './test-support/scripted-worker.js';
import { installTurnAudit } from './test-support/turn-audit.js';
import { retryOnConnectionError } from './test-support/retry-connection.js';

// Every fault of the network-fault tests at once, in worker processes, with SIGKILLs and a server
// restart: `pnpm test` runs a small session count and one round of faults, `pnpm test:exhaustive`
// the full size and three rounds.
const SESSIONS = runs(10, 40);
const PER_SESSION = runs(4, 10);
const ROUNDS = runs(1, 3);
const TOTAL = SESSIONS * PER_SESSION;
const LEASE_MS = 2000;
const root = resolve(import.meta.dirname, '../../..');

interface WorkerProcess {
  name: string;
  child: ChildProcess;
  proxy: CuttableProxy;
  calls: number;
  rollbacks: number;
  errors: string[];
  busEvents: string[];
  health: PostgresBusHealth | null;
  /** SIGKILL at the next model call (mid-turn). */
  killAtNextCall: boolean;
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
const proxies: CuttableProxy[] = [];
let server: TestPostgres | null = null;
let pool: Pool | null = null;

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  }
  for (const proxy of proxies) await proxy.close().catch(() => undefined);
  await pool?.end().catch(() => undefined);
  await server?.stop();
});

async function spawnWorker(url: string, name: string, beforeStart?: (proxy: CuttableProxy) => void): Promise<WorkerProcess> {
  const target = new URL(url);
  const proxy = await startCuttableProxy(target.hostname, Number(target.port));
  proxies.push(proxy);
  beforeStart?.(proxy);
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', resolve(import.meta.dirname, '../test/chaos-worker.ts'), proxy.urlFor(url), name, '25', String(LEASE_MS)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let markReady!: () => void;
  const worker: WorkerProcess = {
    name,
    child,
    proxy,
    calls: 0,
    rollbacks: 0,
    errors: [],
    busEvents: [],
    health: null,
    killAtNextCall: false,
    ready: new Promise((r) => (markReady = r)),
    exited: new Promise((r) => child.once('exit', (code, signal) => r({ code, signal }))),
  };
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  void worker.exited.then(({ code, signal }) => {
    if (code !== 0 && signal === null) worker.errors.push(`exited ${code}: ${stderr.join('').slice(-2000)}`);
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let event: { event?: string; message?: string; stage?: string; type?: string; health?: PostgresBusHealth };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      return;
    }
    if (event.event === 'ready') markReady();
    if (event.event === 'rollback') worker.rollbacks += 1;
    if (event.event === 'error') worker.errors.push(`${event.stage}: ${event.message}`);
    if (event.event === 'bus') worker.busEvents.push(event.type!);
    if (event.event === 'health') worker.health = event.health!;
    if (event.event === 'call') {
      worker.calls += 1;
      if (worker.killAtNextCall) {
        worker.killAtNextCall = false;
        child.kill('SIGKILL');
      }
    }
  });
  await Promise.race([worker.ready, worker.exited.then(() => Promise.reject(new Error(`${name} died: ${worker.errors.join('\n')} ${stderr.join('')}`)))]);
  return worker;
}


const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

it(
  `chaos: ${SESSIONS} sessions × ${PER_SESSION} messages through worker processes with lost COMMIT replies, partitions, SIGKILLs, refused connections at start, a crashed gateway and a server restart (${ROUNDS} round(s)): every message answered exactly once, in order, legal histories, no overlapping turns, every live worker still takes jobs`,
  async () => {
    server = await startTestPostgres({ useEnvironment: false });
    const url = await createTestDatabase(server.url, 'chaos');
    pool = await createPool({ url, max: 4, applicationName: 'test-client' });
    await migrate(pool);
    const client = new PostgresMessageBus({ pool, sessions: new PostgresSessionStore({ pool }), outboundPollMs: 100, visibilityTimeoutMs: 1500, onLog: () => undefined });
    await client.ready();
    await installTurnAudit(pool);

    const workers: WorkerProcess[] = await Promise.all(['w0', 'w1', 'w2'].map((name) => spawnWorker(url, name)));
    let spawned = workers.length;
    const live = (): WorkerProcess[] => workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
    const expected: Record<string, string[]> = {};
    for (let s = 0; s < SESSIONS; s += 1) expected[`s${s}`] = [];
    const publishing = (async () => {
      for (let m = 0; m < PER_SESSION; m += 1) {
        for (let s = 0; s < SESSIONS; s += 1) {
          const content = `s${s} m${m}${(s + m) % 3 === 0 ? ' tool' : ''}`;
          expected[`s${s}`]!.push(content);
          await retryOnConnectionError(() => client.publishInboundDurable({ channel: 'chaos', chatId: `s${s}`, senderId: 'u', content, metadata: { idempotency_key: `s${s}-m${m}` } }));
        }
      }
    })();

    // The faults, each once per round, as the replies come in.
    const done: string[] = [];
    const background: Promise<unknown>[] = [];
    const faults: { at: number; name: string; run: () => Promise<void> }[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const at = (f: number): number => Math.floor(((round + f) / ROUNDS) * TOTAL);
      faults.push(
        {
          at: at(0.05),
          name: 'a COMMIT reply lost',
          run: async () => {
            const w = live().at(-1)!;
            background.push(w.proxy.dropReplyOn('commit', { after: 'tool_calls' }).then(() => done.push(`COMMIT reply dropped for ${w.name}`)));
          },
        },
        {
          at: at(0.15),
          name: 'SIGKILL mid-turn, replacement started while the database refuses it',
          run: async () => {
            const victim = live()[0]!;
            victim.killAtNextCall = true;
            const name = `w${spawned++}`;
            const replacement = spawnWorker(url, name, (proxy) => {
              void proxy.dropReplyOn('_private_tasks').then(() => {
                proxy.refuse();
                setTimeout(() => proxy.accept(), 1500);
              });
            }).then((w) => void workers.push(w));
            background.push(replacement, victim.exited.then(({ signal }) => done.push(`${victim.name} ${signal ?? 'exited'}; ${name} started`)));
          },
        },
        {
          at: at(0.3),
          name: 'a partition longer than the lease, then healed',
          run: async () => {
            const w = live().find((x) => !x.killAtNextCall)!;
            w.proxy.partition();
            background.push(sleep(LEASE_MS * 2.5).then(() => (w.proxy.heal(), done.push(`${w.name} partitioned and healed`))));
          },
        },
        {
          at: at(0.45),
          name: 'server restart',
          run: async () => {
            await server!.halt();
            await sleep(1000);
            await server!.resume();
            done.push('server restarted');
          },
        },
        {
          at: at(0.6),
          name: 'a gateway killed after claiming',
          run: async () => {
            const gatewayPool = await retryOnConnectionError(() => createPool({ url, applicationName: 'gateway' }));
            const gateway = new PostgresMessageBus({ pool: gatewayPool, sessions: new PostgresSessionStore({ pool: gatewayPool }), visibilityTimeoutMs: 1500, onLog: () => undefined });
            const claimed = await gateway.consumeOutbound(AbortSignal.timeout(30_000), { channel: 'chaos' }).catch(() => null);
            await gateway.close();
            await gatewayPool.end();
            done.push(`a gateway died holding ${claimed?.chatId ?? 'nothing'}`);
          },
        },
      );
    }

    const t0 = performance.now();
    const stamp = (what: string): void => void done.push(`${what} at ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const received: OutboundMessage[] = [];
    const deadline = AbortSignal.timeout(runs(150_000, 600_000));
    while (received.length < TOTAL && !deadline.aborted) {
      while (faults.length > 0 && received.length >= faults[0]!.at) {
        const fault = faults.shift()!;
        stamp(fault.name);
        await fault.run();
      }
      const message = await client.consumeOutbound(deadline, { channel: 'chaos' }).catch(() => null);
      if (!message) break;
      await retryOnConnectionError(() => message.ack());
      received.push(message);
      if (received.length % 10 === 0 || received.length > TOTAL - 5) stamp(`${received.length} answers (${message.chatId}: ${message.content})`);
    }
    await publishing;
    await Promise.all(background);
    console.log(
      `chaos: ${done.join('; ')}. ` +
        workers
          .map((w) => `${w.name}: ${w.calls} model calls, ${w.rollbacks} rollbacks, bus events [${[...new Set(w.busEvents)].join(', ')}], ${w.errors.length} errors${w.errors.length ? ` (${w.errors.slice(0, 4).join(' | ')})` : ''}`)
          .join('; '),
    );
    expect(received.length).toBe(TOTAL);
    expect(done.filter((d) => /^w\d+ SIGKILL;/.test(d)).length).toBe(ROUNDS);
    expect(done).toContain('server restarted');
    await verifyDelivery({ pool, channel: 'chaos', delivered: received, expected });

    // Every live worker still takes jobs: with all the others frozen, each answers one message itself.
    for (const w of live()) {
      const others = live().filter((x) => x !== w);
      for (const o of others) o.child.kill('SIGSTOP');
      try {
        await retryOnConnectionError(() => client.publishInboundDurable({ channel: 'final', chatId: w.name, senderId: 'u', content: `final ${w.name}` }));
        const answer = await client.consumeOutbound(AbortSignal.timeout(60_000), { channel: 'final', chatId: w.name });
        await answer.ack();
        expect(answer.content).toBe(`${scriptedAnswer(`final ${w.name}`)} [${w.name}]`);
        console.log(`chaos: ${w.name} answered alone`);
      } finally {
        for (const o of others) o.child.kill('SIGCONT');
      }
    }
    const alive = live();
    for (const w of alive) w.child.kill('SIGTERM');
    for (const w of alive) expect((await w.exited).code).toBe(0);
    for (const w of workers) expect(w.errors.filter((e) => e.startsWith('exited'))).toEqual([]);
    await client.close();
  },
  runs(240_000, 900_000),
);
