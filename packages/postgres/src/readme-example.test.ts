import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject, it } from 'vitest';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { createTestDatabase } from '@nanobot-internal/test-support/postgres';
import { createPool, createPostgresAgent } from './index.js';

it('the README example runs', async () => {
  const url = await createTestDatabase(inject('postgresUrl'), 'readme_test');
  const workspace = await mkdtemp(join(tmpdir(), 'nanobot-ws-'));
  const pool = await createPool({ url });
  const worker = createPostgresAgent({ pool, workspace, provider: new ScriptedProvider(['Hello from a worker.']) });
  await worker.start();
  const id = await worker.bus.publishInboundDurable({ channel: 'telegram', chatId: '42', senderId: 'ann', content: 'hi', metadata: { message_id: 1001 } });
  const reply = await worker.bus.consumeOutbound(AbortSignal.timeout(30_000), { channel: 'telegram' });
  expect([id, reply.chatId, reply.content]).toEqual(['telegram:42:1001', '42', 'Hello from a worker.']);
  await reply.ack();
  await worker.stop();
  expect((await worker.sessions.load('telegram:42')).session.messages.map((m) => m.content)).toEqual(['hi', 'Hello from a worker.']);
  const { rows } = await pool.query<{ delivered: boolean }>(`select delivered_at is not null as delivered from nanobot.outbound`);
  expect(rows).toEqual([{ delivered: true }]);
  await pool.end();
});
