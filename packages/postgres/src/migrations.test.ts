import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import type { Pool } from 'pg';
import { checkLegality } from '@nanobot/governor';
import { createTestDatabase } from '@nanobot-internal/test-support/postgres';
import { contentHash } from './content-hash.js';
import { createPool } from './create-pool.js';
import { migrate, MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { PostgresMessageBus } from './postgres-message-bus.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { scriptedAnswer, startTestWorker } from './test-support/scripted-worker.js';

let pool: Pool;

beforeAll(async () => {
  pool = await createPool({ url: await createTestDatabase(inject('postgresUrl'), 'migration_test') });
});
afterAll(async () => {
  await pool.end();
});

/** A database as @nanobot/postgres with schema version 2 left it. */
async function versionTwo(): Promise<void> {
  await pool.query(`create schema nanobot; create table nanobot.schema_version (id integer primary key check (id = 1), version integer not null, applied_at timestamptz not null default now())`);
  for (const migration of MIGRATIONS.slice(0, 2)) await pool.query(migration('"nanobot"'));
  await pool.query(`insert into nanobot.schema_version (id, version) values (1, 2)`);
}

it('upgrades a version-2 database in place: rows, pending messages and undelivered answers are kept and work', async () => {
  await versionTwo();
  // What a v2 deployment holds: a session with a turn, one answer delivered and one not, and an
  // inbound message published but not yet run (its job queued by a v2 publisher).
  const history = [
    { role: 'user', content: 'old question', timestamp: '2025-01-01T00:00:00.000Z' },
    { role: 'assistant', content: 'old answer ✓', timestamp: '2025-01-01T00:00:01.000Z' },
  ];
  await pool.query(`insert into nanobot.sessions (key, created_at, updated_at, metadata) values ('up:1', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:01.000Z', '{"title":"kept"}')`);
  for (const [seq, message] of history.entries()) {
    await pool.query(`insert into nanobot.messages (session_key, seq, message, inbound_id) values ('up:1', $1, $2::json, 'old-1')`, [seq, JSON.stringify(message)]);
  }
  await pool.query(`insert into nanobot.inbound (id, session_key, message, processed_at) values ('old-1', 'up:1', $1::json, now())`, [JSON.stringify({ channel: 'up', chatId: '1', senderId: 'u', content: 'old question' })]);
  await pool.query(`insert into nanobot.outbound (inbound_id, ordinal, channel, chat_id, session_key, message, delivered_at, delivered_by) values ('old-1', 0, 'up', '1', 'up:1', $1::json, now(), 'gw')`, [
    JSON.stringify({ channel: 'up', chatId: '1', content: 'old answer ✓', sessionKey: 'up:1' }),
  ]);
  await pool.query(`insert into nanobot.outbound (inbound_id, ordinal, channel, chat_id, session_key, message) values (null, null, 'up', '2', null, $1::json)`, [
    JSON.stringify({ channel: 'up', chatId: '2', content: 'not yet delivered' }),
  ]);
  await pool.query(`insert into nanobot.inbound (id, session_key, message) values ('pending-1', 'up:1', $1::json)`, [JSON.stringify({ channel: 'up', chatId: '1', senderId: 'u', content: 'asked before the upgrade' })]);

  expect(await migrate(pool)).toBe(2);
  expect((await pool.query<{ version: number }>(`select version from nanobot.schema_version`)).rows[0]!.version).toBe(SCHEMA_VERSION);
  const v2Bus = new PostgresMessageBus({ pool, sessions: new PostgresSessionStore({ pool }), onLog: () => undefined });
  await v2Bus.ready();
  // The job a v2 publisher queued with the message (graphile-worker's tables come with ready()).
  await pool.query(`select graphile_worker.add_job('nanobot_inbound', json_build_object('id', 'pending-1'), queue_name => 'nanobot:up:1', job_key => 'pending-1')`);

  // Existing rows got their content hash, computed in the database as the store computes it.
  const hashes = await pool.query<{ hash: string; text: string }>(`select hash, message::text as text from nanobot.messages order by seq`);
  for (const row of hashes.rows) expect(row.hash).toBe(contentHash(row.text));
  // The delivered answer stays delivered; the undelivered one is handed out and acknowledged.
  const pending = await v2Bus.consumeOutbound(AbortSignal.timeout(10_000), { channel: 'up' });
  expect([pending.chatId, pending.content, pending.deliveryCount]).toEqual(['2', 'not yet delivered', 1]);
  await pending.ack();
  // A worker of the new version runs the message published before the upgrade, after the old history.
  const worker = await startTestWorker(pool);
  try {
    expect((await v2Bus.awaitTurn('pending-1', AbortSignal.timeout(60_000))).map((m) => m.content)).toEqual([scriptedAnswer('asked before the upgrade')]);
  } finally {
    await worker.stop();
    await v2Bus.close();
  }
  const { session } = await new PostgresSessionStore({ pool }).load('up:1');
  expect(session.metadata).toEqual({ title: 'kept' });
  expect(session.messages.map((m) => m.content)).toEqual(['old question', 'old answer ✓', 'asked before the upgrade', scriptedAnswer('asked before the upgrade')]);
  expect(checkLegality(session.messages, { target: 'any', continuation: true })).toEqual([]);
  // Running the migrations again changes nothing.
  expect(await migrate(pool)).toBe(SCHEMA_VERSION);
});
