import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import { createPool } from './create-pool.js';
import { InboundPublishError, PostgresConnectionError, SessionFencedError } from './errors.js';
import type { PostgresBusEvent } from './bus-events.js';
import { PostgresMessageBus } from './postgres-message-bus.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { startCuttableProxy } from './test-support/cuttable-proxy.js';
import type { CuttableProxy } from './test-support/cuttable-proxy.js';
import { freshDatabase } from './test-support/pg-test-env.js';
import { eventually } from './test-support/eventually.js';

let url: string;
let pool: Pool;

beforeAll(async () => {
  ({ url, pool } = await freshDatabase('unambiguous_test'));
});
afterAll(async () => {
  await pool.end();
});

async function contents(key: string): Promise<unknown[]> {
  const res = await pool.query<{ content: unknown }>(`select message->'content' as content from nanobot.messages where session_key = $1 order by seq`, [key]);
  return res.rows.map((r) => r.content);
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  return Number((await pool.query<{ n: string }>(sql, params)).rows[0]!.n);
}

/** A pool whose connections go through a proxy this test can fault. */
async function proxied(): Promise<{ proxy: CuttableProxy; pool: Pool; close(): Promise<void> }> {
  const target = new URL(url);
  const proxy = await startCuttableProxy(target.hostname, Number(target.port));
  const through = await createPool({ url: proxy.urlFor(url), connectTimeoutMs: 3000 });
  return {
    proxy,
    pool: through,
    async close() {
      await through.end().catch(() => undefined);
      await proxy.close();
    },
  };
}

describe('a save whose outcome is unknown', () => {
  it('COMMIT done, reply lost: the save rejects; saving again finds its rows and writes each once', async () => {
    const net = await proxied();
    try {
      const store = new PostgresSessionStore({ pool: net.pool });
      const { session } = await store.load('lost:1');
      session.addMessage('user', 'a');
      await store.save(session);
      session.addMessage('assistant', 'b-marker');
      session.addMessage('user', 'c');
      session.metadata = { title: 'set with b' };
      const dropped = net.proxy.dropReplyOn('commit', { after: 'b-marker' });
      await expect(store.save(session)).rejects.toBeInstanceOf(PostgresConnectionError);
      await dropped;
      // It did commit.
      expect(await contents('lost:1')).toEqual(['a', 'b-marker', 'c']);
      await store.save(session);
      session.addMessage('assistant', 'd');
      await store.save(session);
      expect(await contents('lost:1')).toEqual(['a', 'b-marker', 'c', 'd']);
      expect((await store.load('lost:1')).session.metadata).toEqual({ title: 'set with b' });
    } finally {
      await net.close();
    }
  });

  it('reply lost and another writer appended before the retry: the rows are recognised by position and hash', async () => {
    const net = await proxied();
    try {
      const store = new PostgresSessionStore({ pool: net.pool });
      const { session } = await store.load('lost:2');
      session.addMessage('user', 'a');
      await store.save(session);
      session.addMessage('assistant', 'b-marker2');
      const dropped = net.proxy.dropReplyOn('commit', { after: 'b-marker2' });
      await expect(store.save(session)).rejects.toBeInstanceOf(PostgresConnectionError);
      await dropped;
      const other = new PostgresSessionStore({ pool });
      const theirs = (await other.load('lost:2')).session;
      theirs.addMessage('user', 'x from another writer');
      await other.save(theirs);
      await store.save(session);
      session.addMessage('user', 'e');
      await store.save(session);
      expect(await contents('lost:2')).toEqual(['a', 'b-marker2', 'x from another writer', 'e']);
    } finally {
      await net.close();
    }
  });

  it('COMMIT never reached the server: saving again writes the rows', async () => {
    const net = await proxied();
    try {
      const store = new PostgresSessionStore({ pool: net.pool });
      const { session } = await store.load('lost:3');
      session.addMessage('user', 'a');
      await store.save(session);
      session.addMessage('assistant', 'b');
      net.proxy.cutOn('commit');
      await expect(store.save(session)).rejects.toBeInstanceOf(PostgresConnectionError);
      expect(await contents('lost:3')).toEqual(['a']);
      net.proxy.accept();
      await store.save(session);
      expect(await contents('lost:3')).toEqual(['a', 'b']);
    } finally {
      await net.close();
    }
  });
});

describe('fencing', () => {
  it('a write that carries no lease is refused while a worker turn holds the session, with a clear error', async () => {
    const worker = new PostgresSessionStore({ pool });
    const seed = (await worker.load('leased:1')).session;
    seed.addMessage('user', 'before');
    await worker.save(seed);
    const turn = await worker.beginAttempt('leased:1', 'in-1', { owner: 'worker-x', leaseMs: 30_000 });
    const stranger = new PostgresSessionStore({ pool });
    const theirs = (await stranger.load('leased:1')).session;
    theirs.addMessage('user', 'from a store the bus does not know');
    const refused = await stranger.save(theirs).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SessionFencedError);
    expect((refused as Error).message).toMatch(/share one PostgresSessionStore instance \(use createPostgresAgent\)/);
    await expect(stranger.delete('leased:1')).rejects.toBeInstanceOf(SessionFencedError);
    // The turn itself writes; once it gave its lease back, anyone may.
    const mine = (await worker.load('leased:1')).session;
    mine.addMessage('assistant', 'by the turn');
    await worker.save(mine);
    worker.endAttempt(turn);
    await worker.releaseLease(turn);
    const later = (await stranger.load('leased:1')).session;
    later.addMessage('user', 'after');
    await stranger.save(later);
    expect(await contents('leased:1')).toEqual(['before', 'by the turn', 'after']);
    // Epochs only grow, also across a deleted session.
    await stranger.delete('leased:1');
    const next = await worker.beginAttempt('leased:1', 'in-2', { owner: 'worker-x', leaseMs: 1 });
    expect(next.epoch).toBe(turn.epoch + 1);
    worker.endAttempt(next);
  });

  it('a claim waits while another owner holds a live lease, then refuses', async () => {
    const a = new PostgresSessionStore({ pool });
    const held = await a.beginAttempt('busy:1', 'in-1', { owner: 'worker-a', leaseMs: 30_000 });
    const error = await a.beginAttempt('busy:1', 'in-2', { owner: 'worker-b', leaseMs: 1000, waitMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionFencedError);
    expect((error as Error).message).toMatch(/still leased by worker-a/);
    await a.releaseLease(held);
    const taken = await a.beginAttempt('busy:1', 'in-2', { owner: 'worker-b', leaseMs: 1000 });
    expect(taken.epoch).toBe(held.epoch + 1);
    a.endAttempt(held);
    a.endAttempt(taken);
  });
});

describe('publishing with an idempotency key', () => {
  it('publishInbound returns the key at once; through an outage it is retried and stored once', async () => {
    const net = await proxied();
    const bus = new PostgresMessageBus({ pool: net.pool, sessions: new PostgresSessionStore({ pool: net.pool }), onLog: () => undefined });
    const events: PostgresBusEvent[] = [];
    bus.onEvent((e) => events.push(e));
    try {
      await bus.ready();
      expect(bus.publishInbound({ channel: 'pub', chatId: '1', senderId: 'u', content: 'x', metadata: { message_id: 9 } })).toBe('pub:1:9');
      net.proxy.cut();
      const key = bus.publishInbound({ channel: 'pub', chatId: '1', senderId: 'u', content: 'during the outage' });
      expect(key).toMatch(/^[0-9a-f-]{36}$/);
      await eventually('a publish retry', () => events.some((e) => e.type === 'publish_retry' && e.idempotencyKey === key));
      expect(bus.health().pendingPublishes).toBeGreaterThan(0);
      net.proxy.accept();
      await bus.close();
      expect(await count(`select count(*) as n from nanobot.inbound where id = $1`, [key])).toBe(1);
      expect(await count(`select count(*) as n from graphile_worker.jobs where key = $1`, [key])).toBe(1);
      expect(events.some((e) => e.type === 'publish_retry' && e.idempotencyKey === key)).toBe(true);
      expect(events.some((e) => e.type === 'publish_failed')).toBe(false);
    } finally {
      await net.close();
    }
  });

  it('publishInboundDurable: a lost COMMIT reply rejects with the key; publishing again with it stores once', async () => {
    const net = await proxied();
    const bus = new PostgresMessageBus({ pool: net.pool, sessions: new PostgresSessionStore({ pool: net.pool }), onLog: () => undefined });
    try {
      await bus.ready();
      const message = { channel: 'pub', chatId: '2', senderId: 'u', content: 'durable' };
      const dropped = net.proxy.dropReplyOn('commit', { after: 'add_job' });
      const error = await bus.publishInboundDurable(message).catch((e: unknown) => e);
      await dropped;
      expect(error).toBeInstanceOf(InboundPublishError);
      const key = (error as InboundPublishError).idempotencyKey;
      expect(await bus.publishInboundDurable(message, { idempotencyKey: key })).toBe(key);
      expect(await count(`select count(*) as n from nanobot.inbound where session_key = 'pub:2'`)).toBe(1);
      expect(await count(`select count(*) as n from graphile_worker.jobs where key = $1`, [key])).toBe(1);
      // With a signal it waits for the database instead.
      net.proxy.cut();
      setTimeout(() => net.proxy.accept(), 800);
      const waited = await bus.publishInboundDurable({ ...message, content: 'waited' }, { signal: AbortSignal.timeout(30_000) });
      expect(await count(`select count(*) as n from nanobot.inbound where id = $1`, [waited])).toBe(1);
    } finally {
      await bus.close();
      await net.close();
    }
  });
});

describe('outbound delivery with acknowledgement', () => {
  it("a chat's messages go out one at a time, in order; unacknowledged ones come back with the same id", async () => {
    const bus = new PostgresMessageBus({ pool, sessions: new PostgresSessionStore({ pool }), visibilityTimeoutMs: 600, outboundPollMs: 50, onLog: () => undefined });
    const other = new PostgresMessageBus({ pool, sessions: new PostgresSessionStore({ pool }), visibilityTimeoutMs: 600, outboundPollMs: 50, onLog: () => undefined });
    try {
      await bus.ready();
      for (const content of ['x1', 'x2', 'x3']) bus.publishOutbound({ channel: 'ack', chatId: 'x', content });
      bus.publishOutbound({ channel: 'ack', chatId: 'y', content: 'y1' });
      for (let stored = 0; stored < 4; ) {
        stored = await count(`select count(*) as n from nanobot.outbound where channel = 'ack'`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const first = await bus.consumeOutbound(AbortSignal.timeout(10_000), { channel: 'ack', chatId: 'x' });
      expect(first.content).toBe('x1');
      // While x1 is out, x2 waits; other chats go on.
      expect((await other.consumeOutbound(AbortSignal.timeout(10_000), { channel: 'ack' })).content).toBe('y1');
      await expect(other.consumeOutbound(AbortSignal.timeout(300), { channel: 'ack', chatId: 'x' })).rejects.toThrow();
      await first.ack();
      await first.ack();
      const second = await other.consumeOutbound(AbortSignal.timeout(10_000), { channel: 'ack', chatId: 'x' });
      expect([second.content, second.deliveryCount]).toEqual(['x2', 1]);
      // Not acknowledged: handed out again after the visibility timeout, same id.
      const again = await bus.consumeOutbound(AbortSignal.timeout(10_000), { channel: 'ack', chatId: 'x' });
      expect([again.content, again.deliveryId, again.deliveryCount]).toEqual(['x2', second.deliveryId, 2]);
      await bus.ack(again.deliveryId);
      const third = await other.consumeOutbound(AbortSignal.timeout(10_000), { channel: 'ack', chatId: 'x' });
      expect(third.content).toBe('x3');
      await third.ack();
      // The delivery handles are not part of the message.
      expect(JSON.parse(JSON.stringify(third))).toEqual({ channel: 'ack', chatId: 'x', content: 'x3' });
      expect(bus.health().status).toBe('idle');
    } finally {
      await bus.close();
      await other.close();
    }
    expect(bus.health().status).toBe('closed');
  });
});
