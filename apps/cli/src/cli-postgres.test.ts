import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLegality } from '@nanobot/governor';
import { createPool, PostgresMessageBus, PostgresSessionStore } from '@nanobot/postgres';
import { createTestDatabase, startTestPostgres } from '@nanobot-internal/test-support/postgres';
import type { TestPostgres } from '@nanobot-internal/test-support/postgres';
import { CliProcess, cleanEnv, runCli, tempDir } from './test-support/spawn-cli.js';
import type { FakeOpenAiServer } from './test-support/fake-openai-server.js';
import { startToolFollowingServer } from './test-support/tool-following-server.js';

let server: TestPostgres;
let url: string;
// The offline model never runs tools from chat text: turns that must write and read files talk to
// a local fake OpenAI-compatible model that does.
let model: FakeOpenAiServer;

beforeAll(async () => {
  server = await startTestPostgres();
  url = await createTestDatabase(server.url, 'cli_test');
  model = await startToolFollowingServer();
}, 120_000);
afterAll(async () => {
  await model.close();
  await server.stop();
});

async function withStore<T>(fn: (store: PostgresSessionStore, bus: PostgresMessageBus) => Promise<T>): Promise<T> {
  const pool = await createPool({ url });
  const store = new PostgresSessionStore({ pool });
  const bus = new PostgresMessageBus({ pool, sessions: store, outboundPollMs: 200 });
  try {
    return await fn(store, bus);
  } finally {
    await bus.close();
    await pool.end();
  }
}

describe('nanobot with --database-url (a real PostgreSQL)', () => {
  it('run: the turn goes through the database, the session is stored there and can be continued', async () => {
    const workspace = tempDir('ws');
    const sessions = tempDir('sessions');
    // A long lease: this test is about the turn going through the database, not lease timing, and
    // a loaded CI machine can stall the child's event loop past the default 4 s (its turn is then
    // fenced and re-run, with warnings on stderr). Takeover is tested in @nanobot/postgres.
    const env = cleanEnv({ NANOBOT_SESSIONS_DIR: sessions, OPENAI_BASE_URL: model.url, NANOBOT_DATABASE_LEASE_MS: '30000' });
    const first = await runCli(['run', '-m', 'write notes/pg.md: stored in postgres', '-w', workspace, '--database-url', url, '--session', 'pg-run', '--json'], { env });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const end = first.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; reply?: string; stopReason?: string }).at(-1)!;
    expect(end.type).toBe('cli_end');
    expect(end.stopReason).toBe('completed');
    const second = await runCli(['run', '-m', 'read notes/pg.md', '-w', workspace, '--database-url', url, '--session', 'pg-run'], { env });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('stored in postgres');
    await withStore(async (store) => {
      const { session, created } = await store.load('pg-run');
      expect(created).toBe(false);
      expect(session.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['write notes/pg.md: stored in postgres', 'read notes/pg.md']);
      expect(checkLegality(session.messages)).toEqual([]);
    });
  }, 120_000);

  it('worker: answers messages published to the database until Ctrl-C, then exits 0', async () => {
    const workspace = tempDir('ws');
    mkdirSync(join(workspace, 'notes'));
    const worker = new CliProcess(['worker', '-w', workspace, '--database-url', url], { env: cleanEnv({ OPENAI_BASE_URL: model.url, NANOBOT_DATABASE_LEASE_MS: '30000' }) });
    await worker.waitFor(/worker \S+ ready on 127\.0\.0\.1:\d+\/cli_test/);
    // Its bus's health, logged at start (and when it changes, and once a minute).
    await worker.waitFor(/health ok: 0 job\(s\) taken, .*lease renewed .* ago, runner running/);
    await withStore(async (_store, bus) => {
      const id = await bus.publishInboundDurable({ channel: 'telegram', chatId: '7', senderId: 'ann', content: 'write notes/w.md: from a worker' });
      const out = await bus.awaitTurn(id, AbortSignal.timeout(60_000));
      expect(bus.health().status).toBe('idle');
      expect(out.map((m) => m.chatId)).toEqual(['7']);
      expect(out[0]!.content).toMatch(/notes\/w\.md/);
    });
    await worker.waitFor(/turn telegram:7 \(telegram:7\): completed/);
    worker.child.kill('SIGINT');
    const result = await worker.exited;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('worker stopped');
  }, 120_000);

  it('a wrong database URL is one line and exit 2', async () => {
    const result = await runCli(['run', '-m', 'hi', '--offline', '-w', tempDir('ws'), '--database-url', 'postgres://nobody:x@127.0.0.1:1/none'], { env: cleanEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^nanobot: cannot use the database at 127\.0\.0\.1:1\/none: PostgreSQL unavailable/);
    const worker = await runCli(['worker', '--offline', '-w', tempDir('ws')], { env: cleanEnv() });
    expect(worker.code).toBe(2);
    expect(worker.stderr).toMatch(/nanobot worker needs --database-url/);
    const lease = await runCli(['run', '-m', 'hi', '--offline', '-w', tempDir('ws'), '--database-url', url], { env: cleanEnv({ NANOBOT_DATABASE_LEASE_MS: '500' }) });
    expect(lease.code).toBe(2);
    expect(lease.stderr).toMatch(/NANOBOT_DATABASE_LEASE_MS must be an integer of at least 1000, got "500"/);
  }, 120_000);
});
