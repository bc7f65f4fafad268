import { afterEach, expect, inject, it } from 'vitest';
import type { OutboundMessage } from '@nanobot/runner';
import { createPool } from './create-pool.js';
import { PostgresMessageBus } from './postgres-message-bus.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { FAULT_BUS, lastUserText, startFaultWorld } from './test-support/fault-world.js';
import { eventually } from './test-support/eventually.js';
import type { FaultWorld } from './test-support/fault-world.js';

// Network faults between a worker and the server, through a TCP proxy per worker. Each test
// checks what the issue asks of every fault: every message answered exactly once, in order;
// every stored history legal to continue, holding each message and its answer once, its answer
// the one delivered; no turn of a session overlapping on two workers (an audit trigger logs which
// worker wrote what, see turn-audit.ts).

let world: FaultWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves with `promise`, or after `ms` with undefined (the test goes on either way). */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([promise, sleep(ms).then(() => undefined)]);
}

it('a COMMIT whose reply is lost mid-turn (a checkpoint save): the rows are stored once and the turn goes on', async () => {
  world = await startFaultWorld(inject('postgresUrl'), 'fault_commit');
  const a = await world.startWorker('a');
  await world.publish('c', 'first');
  await world.collect('c', 1);
  // The save that stores the assistant's tool call commits; its reply never arrives.
  const dropped = a.proxy.dropReplyOn('commit', { after: 'tool_calls' });
  await world.publish('c', 'second tool');
  await dropped;
  await world.collect('c', 1);
  await world.publish('c', 'third');
  await world.collect('c', 1);
  await world.verify({ c: ['first', 'second tool', 'third'] });
});

/**
 * Worker a is cut off the moment it sends `trigger` during the turn of m1, for longer than its
 * lease; worker b starts and takes the session over; then the partition heals and a's held
 * traffic reaches the server. `gateB` holds b's model call for m1 until after the heal (so a's
 * late writes land while b's turn runs).
 */
async function partitionedTakeover(name: string, trigger: string, options: { gateB?: boolean } = {}): Promise<void> {
  world = await startFaultWorld(inject('postgresUrl'), name);
  const a = await world.startWorker('a');
  await world.publish('p', 'm0');
  await world.collect('p', 1);
  const cut = a.proxy.partitionOn(trigger);
  await world.publish('p', 'm1');
  await cut;
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let called!: () => void;
  const bCalled = new Promise<void>((r) => (called = r));
  await world.startWorker('b', {
    onCall: async (request) => {
      if (lastUserText(request) !== 'm1') return;
      called();
      if (options.gateB) await gate;
    },
  });
  const m1 = world.collect('p', 1);
  // b takes m1 over once a's lease ran out (seconds); an old worker that cannot would hang here.
  await within<unknown>(options.gateB ? bCalled : m1, 20_000);
  a.proxy.heal();
  if (options.gateB) {
    await sleep(1500);
    open();
  }
  await m1;
  await world.publish('p', 'm2');
  await world.collect('p', 1);
  await world.verify({ p: ['m0', 'm1', 'm2'] });
  // b took m1 over; a stopped that turn itself (its lease ran out) and writes nothing of it.
  expect(world.delivered[1]!.content).toBe('answer to m1 [b]');
  expect(a.worker.bus.health().turnsFenced).toBeGreaterThanOrEqual(1);
}

it('a worker partitioned at insert for longer than its lease, then healed, writes nothing more', async () => {
  await partitionedTakeover('fault_insert', 'insert into "nanobot".messages');
});

it('a worker partitioned at load for longer than its lease, then healed, writes nothing more', async () => {
  await partitionedTakeover('fault_load', "json_agg(json_build_object('message'");
});

it('a worker partitioned while storing its answer for longer than its lease, then healed, delivers nothing', async () => {
  await partitionedTakeover('fault_answer', 'insert into "nanobot".outbound', { gateB: true });
});

it("a database that refuses connections while a worker starts (its first job lookup fails): the worker still takes jobs", async () => {
  world = await startFaultWorld(inject('postgresUrl'), 'fault_start');
  let fired = false;
  const a = await world.startWorker('a', {
    beforeStart: (proxy) => {
      void proxy.dropReplyOn('_private_tasks').then(() => {
        fired = true;
        proxy.refuse();
        setTimeout(() => proxy.accept(), 1500);
      });
    },
  });
  await world.publish('s', 'one');
  await world.publish('s', 'two tool');
  await world.collect('s', 2);
  expect(fired).toBe(true);
  await world.verify({ s: ['one', 'two tool'] });
  // Healthy again (a loaded machine may delay a heartbeat for a moment: wait for it, do not time it).
  await eventually('the worker to report ok', () => a.worker.bus.health().status === 'ok');
  expect(a.worker.bus.health()).toMatchObject({ worker: true, runnerRunning: true });
  expect(a.worker.bus.health().jobsTaken).toBeGreaterThan(0);
});

it("a database that refuses connections while a worker starts (graphile-worker's startup query fails): no crash, the worker takes jobs", async () => {
  world = await startFaultWorld(inject('postgresUrl'), 'fault_start_cron');
  const a = await world.startWorker('a', {
    beforeStart: (proxy) => {
      proxy.cutOn('_private_known_crontabs');
      setTimeout(() => proxy.accept(), 1500);
    },
  });
  await world.publish('s', 'one');
  await world.collect('s', 1);
  await world.verify({ s: ['one'] });
  await eventually('the worker to report ok', () => a.worker.bus.health().status === 'ok');
  expect(a.worker.bus.health().runnerRunning).toBe(true);
});

it('a gateway killed after claiming an answer: the answer is delivered again, same id, before the next one', async () => {
  world = await startFaultWorld(inject('postgresUrl'), 'fault_gateway');
  await world.startWorker('a');
  const gatewayPool = await createPool({ url: world.url, applicationName: 'gateway-1' });
  const gateway = new PostgresMessageBus({ pool: gatewayPool, sessions: new PostgresSessionStore({ pool: gatewayPool }), ...FAULT_BUS, onLog: () => undefined });
  await world.publish('g', 'm0');
  await world.publish('g', 'm1');
  const claimed = (await gateway.consumeOutbound(AbortSignal.timeout(60_000), { channel: 'fault', chatId: 'g' })) as OutboundMessage & { deliveryId?: string };
  // It dies before delivering: no ack, its connections gone.
  await gateway.close();
  await gatewayPool.end();
  const [again, next] = await world.collect('g', 2);
  expect(again!.content).toBe(claimed.content);
  expect((again as unknown as { deliveryId: string }).deliveryId).toBe(claimed.deliveryId);
  expect((again as unknown as { deliveryCount: number }).deliveryCount).toBe(2);
  expect(next!.content.startsWith('answer to m1')).toBe(true);
  await world.verify({ g: ['m0', 'm1'] });
});
