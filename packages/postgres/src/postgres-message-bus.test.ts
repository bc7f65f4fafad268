import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import { checkLegality } from '@nanobot/governor';
import type { InboundMessage, OutboundMessage } from '@nanobot/runner';
import { ValidationError } from '@nanobot/schema';
import { PostgresMessageBus } from './postgres-message-bus.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { freshDatabase } from './test-support/pg-test-env.js';
import { scriptedAnswer, startTestWorker } from './test-support/scripted-worker.js';
import type { TestWorker } from './test-support/scripted-worker.js';

let pool: Pool;
let worker: TestWorker;
let client: PostgresMessageBus;

beforeAll(async () => {
  ({ pool } = await freshDatabase('bus_test'));
  worker = await startTestWorker(pool);
  client = new PostgresMessageBus({ pool, sessions: new PostgresSessionStore({ pool }), outboundPollMs: 200 });
});
afterAll(async () => {
  await worker.stop();
  await client.close();
  await pool.end();
});

async function collect(n: number, chatId?: string): Promise<OutboundMessage[]> {
  const out: OutboundMessage[] = [];
  const signal = AbortSignal.timeout(60_000);
  while (out.length < n) {
    const delivery = await client.consumeOutbound(signal, chatId !== undefined ? { chatId } : {});
    await delivery.ack();
    out.push(delivery);
  }
  return out;
}

async function count(sql: string, params: unknown[]): Promise<number> {
  const res = await pool.query<{ n: string }>(sql, params);
  return Number(res.rows[0]!.n);
}

describe('PostgresMessageBus', () => {
  it('runs inbound messages as jobs and delivers each answer to its own chat, in order per session', async () => {
    for (let i = 0; i < 3; i += 1) {
      await client.publishInboundDurable({ channel: 'test', chatId: 'a', senderId: 'u', content: `a${i}` });
      await client.publishInboundDurable({ channel: 'test', chatId: 'b', senderId: 'u', content: `b${i} tool` });
    }
    const a = await collect(3, 'a');
    const b = await collect(3, 'b');
    expect(a.map((m) => m.content)).toEqual(['a0', 'a1', 'a2'].map(scriptedAnswer));
    expect(b.map((m) => m.content)).toEqual(['b0 tool', 'b1 tool', 'b2 tool'].map(scriptedAnswer));
    for (const key of ['test:a', 'test:b']) {
      const { session } = await worker.sessions.load(key);
      expect(checkLegality(session.messages)).toEqual([]);
      expect(session.messages.filter((m) => m.role === 'user').length).toBe(3);
    }
    const { session } = await worker.sessions.load('test:b');
    expect(session.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
  });

  it('publishing the same message id twice answers it once', async () => {
    const message = { channel: 'test', chatId: 'dup', senderId: 'u', content: 'once', metadata: { message_id: 77 } };
    expect(await client.publishInboundDurable(message)).toBe('test:dup:77');
    expect(await client.publishInboundDurable(message)).toBe('test:dup:77');
    await client.publishInboundDurable({ channel: 'test', chatId: 'dup', senderId: 'u', content: 'after' });
    const out = await collect(2, 'dup');
    expect(out.map((m) => m.content)).toEqual([scriptedAnswer('once'), scriptedAnswer('after')]);
    expect(await count(`select count(*) as n from nanobot.messages where session_key = $1 and message->>'role' = 'user'`, ['test:dup'])).toBe(2);
  });

  it('a retried job of a processed message neither answers nor appends again', async () => {
    const id = await client.publishInboundDurable({ channel: 'test', chatId: 'retry', senderId: 'u', content: 'r1' });
    await collect(1, 'retry');
    await pool.query(`select graphile_worker.add_job('nanobot_inbound', json_build_object('id', $1::text), queue_name => 'nanobot:test:retry')`, [id]);
    await client.publishInboundDurable({ channel: 'test', chatId: 'retry', senderId: 'u', content: 'r2' });
    const out = await collect(1, 'retry');
    expect(out[0]!.content).toBe(scriptedAnswer('r2'));
    expect(await count(`select count(*) as n from nanobot.outbound where chat_id = 'retry'`, [])).toBe(2);
    expect(await count(`select count(*) as n from nanobot.messages where session_key = 'test:retry'`, [])).toBe(4);
  });

  it('a job whose earlier attempt died mid-turn rolls that attempt back and answers once', async () => {
    // What a worker killed mid-turn leaves: the inbound row and the turn's first rows, no marker.
    const message = { channel: 'test', chatId: 'crash', senderId: 'u', content: 'c1' };
    await pool.query(`insert into nanobot.inbound (id, session_key, message) values ('crash-1', 'test:crash', $1::json)`, [JSON.stringify(message)]);
    const store = new PostgresSessionStore({ pool });
    // Its lease (1 ms) has run out, as a dead worker's does.
    const turn = await store.beginAttempt('test:crash', 'crash-1', { leaseMs: 1 });
    const { session } = await store.load('test:crash');
    session.addMessage('user', 'c1');
    await store.save(session);
    store.endAttempt(turn);
    await pool.query(`insert into nanobot.outbound (inbound_id, ordinal, channel, chat_id, session_key, message) values ('crash-1', 0, 'test', 'crash', 'test:crash', $1::json)`, [
      JSON.stringify({ channel: 'test', chatId: 'crash', content: scriptedAnswer('c1'), sessionKey: 'test:crash' }),
    ]);
    await pool.query(`select graphile_worker.add_job('nanobot_inbound', json_build_object('id', 'crash-1'), queue_name => 'nanobot:test:crash', job_key => 'crash-1')`);
    await client.publishInboundDurable({ channel: 'test', chatId: 'crash', senderId: 'u', content: 'c2' });
    const out = await collect(2, 'crash');
    expect(out.map((m) => m.content)).toEqual([scriptedAnswer('c1'), scriptedAnswer('c2')]);
    const stored = (await store.load('test:crash')).session.messages;
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ['user', 'c1'],
      ['assistant', scriptedAnswer('c1')],
      ['user', 'c2'],
      ['assistant', scriptedAnswer('c2')],
    ]);
    expect(await count(`select count(*) as n from nanobot.outbound where chat_id = 'crash'`, [])).toBe(2);
  });

  it('a malformed message is refused at publish with nothing stored; one stored anyway is not retried forever', async () => {
    const bad = { channel: 'test', chatId: 'bad', senderId: 'u', content: 42 } as unknown as InboundMessage;
    await expect(client.publishInboundDurable(bad)).rejects.toBeInstanceOf(ValidationError);
    expect(await count(`select count(*) as n from nanobot.inbound where session_key = 'test:bad'`, [])).toBe(0);
    // Written by something else that skipped the check: the worker reports it, marks it done, and goes on.
    await pool.query(`insert into nanobot.inbound (id, session_key, message) values ('bad-1', 'test:bad', $1::json)`, [JSON.stringify(bad)]);
    await pool.query(`select graphile_worker.add_job('nanobot_inbound', json_build_object('id', 'bad-1'), queue_name => 'nanobot:test:bad', job_key => 'bad-1')`);
    const fine = await client.publishInboundDurable({ channel: 'test', chatId: 'bad', senderId: 'u', content: 'fine' });
    expect((await client.awaitTurn(fine, AbortSignal.timeout(60_000))).map((m) => m.content)).toEqual([scriptedAnswer('fine')]);
    expect(await count(`select count(*) as n from nanobot.inbound where session_key = 'test:bad' and processed_at is null`, [])).toBe(0);
  });
});
