import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLegality } from '@nanobot/governor';
import { createPool, PostgresConnectionError, PostgresMessageBus, PostgresSessionStore } from '@nanobot/postgres';
import { createTestDatabase, startTestPostgres } from '@nanobot-internal/test-support/postgres';
import type { TestPostgres } from '@nanobot-internal/test-support/postgres';
import { openSse, postJson, startTestDemo } from '../test-support/demo-fixture.js';

let server: TestPostgres;
let url: string;

beforeAll(async () => {
  server = await startTestPostgres();
  url = await createTestDatabase(server.url, 'web_test');
}, 120_000);
afterAll(async () => {
  await server.stop();
});

describe('the web demo with a database URL (a real PostgreSQL)', () => {
  it('stores the page\'s sessions in PostgreSQL and answers messages published to the database', async () => {
    const demo = await startTestDemo({ databaseUrl: url });
    try {
      const created = await postJson(`${demo.url}/api/sessions`, {});
      const key = (created.json as { key: string }).key;
      const sse = await openSse(`${demo.url}/api/sessions/${encodeURIComponent(key)}/events`);
      await sse.waitFor((e) => e.type === 'snapshot');
      expect((await postJson(`${demo.url}/api/sessions/${encodeURIComponent(key)}/messages`, { text: 'What is in the workspace?' })).status).toBe(202);
      expect(await sse.waitFor((e) => e.type === 'turn_end')).toMatchObject({ stopReason: 'completed' });
      sse.hangUp();
      await demo.host.idle();

      const pool = await createPool({ url });
      const store = new PostgresSessionStore({ pool });
      const client = new PostgresMessageBus({ pool, sessions: store, outboundPollMs: 200 });
      try {
        const { session } = await store.load(key);
        expect(session.messages[0]).toMatchObject({ role: 'user' });
        expect(session.messages.some((m) => m.role === 'tool' && m.name === 'list_dir')).toBe(true);
        expect(checkLegality(session.messages)).toEqual([]);
        // Another process publishes for a web session: the demo's worker takes the job.
        const id = await client.publishInboundDurable({ channel: 'web', chatId: key, senderId: 'other', content: 'Show me what is here', sessionKeyOverride: key });
        await client.awaitTurn(id, AbortSignal.timeout(60_000));
        // Its answer was stored for delivery (and the demo, the deliverer of channel "web", took it).
        const rows = await pool.query<{ session_key: string }>(`select session_key from nanobot.outbound where inbound_id = $1`, [id]);
        expect(rows.rows.map((r) => r.session_key)).toEqual([key]);
        expect((await store.load(key)).session.messages.filter((m) => m.role === 'user')).toHaveLength(2);
      } finally {
        await client.close();
        await pool.end();
      }
    } finally {
      await demo.dispose();
    }
  }, 120_000);

  it('an unreachable database refuses to start with one typed error', async () => {
    await expect(startTestDemo({ databaseUrl: 'postgres://nobody:x@127.0.0.1:1/none' })).rejects.toBeInstanceOf(PostgresConnectionError);
  }, 60_000);
});
