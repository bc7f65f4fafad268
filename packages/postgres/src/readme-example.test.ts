import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject, it } from 'vitest';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { createAgent } from '@nanobot/runner';
import { createTestDatabase } from '@nanobot-internal/test-support/postgres';
import { createPool, PostgresMessageBus, PostgresSessionStore } from './index.js';

it('the README example runs', async () => {
  const url = await createTestDatabase(inject('postgresUrl'), 'readme_test');
  const workspace = await mkdtemp(join(tmpdir(), 'nanobot-ws-'));
  const pool = await createPool({ url });
  const sessions = new PostgresSessionStore({ pool });
  const bus = new PostgresMessageBus({ pool, sessions });
  await bus.ready();
  const agent = createAgent({ workspace, provider: new ScriptedProvider(['Hello from a worker.']), sessions, bus });
  agent.start();
  await bus.startWorker();
  await bus.publishInboundDurable({ channel: 'telegram', chatId: '42', senderId: 'ann', content: 'hi' });
  const reply = await bus.consumeOutbound(AbortSignal.timeout(30_000), { channel: 'telegram' });
  expect([reply.chatId, reply.content]).toEqual(['42', 'Hello from a worker.']);
  await bus.close();
  await agent.stop();
  expect((await sessions.load('telegram:42')).session.messages.map((m) => m.content)).toEqual(['hi', 'Hello from a worker.']);
  await pool.end();
});
