import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import { ConfigurationError } from '@nanobot/schema';
import { createPool } from './create-pool.js';
import { PostgresConnectionError, PostgresSchemaError } from './errors.js';
import { migrate, SCHEMA_VERSION } from './migrations.js';
import { PostgresMessageBus } from './postgres-message-bus.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { startCuttableProxy } from './test-support/cuttable-proxy.js';
import type { CuttableProxy } from './test-support/cuttable-proxy.js';
import { freshDatabase } from './test-support/pg-test-env.js';

let url: string;
let pool: Pool;

beforeAll(async () => {
  ({ url, pool } = await freshDatabase('bad_input_test'));
});
afterAll(async () => {
  await pool.end();
});

function withPort(target: string, port: number): string {
  const u = new URL(target);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

async function tables(schema: string): Promise<string[]> {
  const res = await pool.query<{ t: string }>(`select table_name as t from information_schema.tables where table_schema = $1 order by 1`, [schema]);
  return res.rows.map((r) => r.t);
}

describe('a wrong URL is one clear typed error', () => {
  it('malformed or not postgres://', async () => {
    await expect(createPool({ url: 'not a url' })).rejects.toBeInstanceOf(ConfigurationError);
    await expect(createPool({ url: 'mysql://x@127.0.0.1/db' })).rejects.toThrow(/postgres:\/\//);
  });

  it('nobody listening, wrong password, missing database', async () => {
    const proxy = await startCuttableProxy('127.0.0.1', 1);
    const closedPort = proxy.port;
    await proxy.close();
    const refused = createPool({ url: withPort(url, closedPort), connectTimeoutMs: 5000 });
    await expect(refused).rejects.toBeInstanceOf(PostgresConnectionError);
    await expect(refused).rejects.toMatchObject({ code: 'POSTGRES_CONNECTION' });
    const wrongPassword = new URL(url);
    wrongPassword.password = 'definitely-wrong';
    await expect(createPool({ url: wrongPassword.toString() })).rejects.toBeInstanceOf(PostgresConnectionError);
    const missing = new URL(url);
    missing.pathname = '/no_such_database';
    await expect(createPool({ url: missing.toString() })).rejects.toThrow(/no_such_database/);
  });
});

describe('a schema from a newer version', () => {
  it('throws PostgresSchemaError and writes nothing', async () => {
    await pool.query(`create schema future; create table future.schema_version (id integer primary key, version integer not null, applied_at timestamptz not null default now())`);
    await pool.query(`insert into future.schema_version (id, version) values (1, $1)`, [SCHEMA_VERSION + 1]);
    const error = await migrate(pool, 'future').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresSchemaError);
    expect(error).toMatchObject({ code: 'POSTGRES_SCHEMA_TOO_NEW', found: SCHEMA_VERSION + 1, supported: SCHEMA_VERSION });
    expect(await tables('future')).toEqual(['schema_version']);
    const bus = new PostgresMessageBus({ pool, sessions: new PostgresSessionStore({ pool, schema: 'future' }) });
    await expect(bus.ready()).rejects.toBeInstanceOf(PostgresSchemaError);
    await expect(bus.publishInboundDurable({ channel: 'c', chatId: '1', senderId: 'u', content: 'x' })).rejects.toBeInstanceOf(PostgresSchemaError);
    expect(await tables('future')).toEqual(['schema_version']);
  });

  it('migrating again is a no-op', async () => {
    expect(await migrate(pool)).toBe(SCHEMA_VERSION);
    expect(await migrate(pool)).toBe(SCHEMA_VERSION);
  });
});

describe('a server that goes away', () => {
  let proxy: CuttableProxy;
  let proxied: Pool;

  beforeAll(async () => {
    const target = new URL(url);
    proxy = await startCuttableProxy(target.hostname, Number(target.port || 5432));
    proxied = await createPool({ url: withPort(url, proxy.port), connectTimeoutMs: 5000 });
  });
  afterAll(async () => {
    await proxied.end().catch(() => undefined);
    await proxy.close();
  });

  it('mid-transaction (at COMMIT): one typed error, nothing of the save written', async () => {
    const store = new PostgresSessionStore({ pool: proxied });
    const { session } = await store.load('gone:1');
    session.addMessage('user', 'acknowledged');
    await store.save(session);
    session.addMessage('assistant', 'never acknowledged');
    session.addMessage('user', 'nor this');
    session.metadata = { title: 'half' };
    proxy.cutOn('commit');
    const error = await store.save(session).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresConnectionError);
    expect((error as Error).message).toMatch(/saving session "gone:1"/);
    const direct = (await new PostgresSessionStore({ pool }).load('gone:1')).session;
    expect(direct.messages.map((m) => m.content)).toEqual(['acknowledged']);
    expect(direct.metadata).toEqual({});
  });

  it('gone for good: load, save, list and publish reject with PostgresConnectionError', async () => {
    proxy.cut();
    const store = new PostgresSessionStore({ pool: proxied });
    await expect(store.load('gone:2')).rejects.toBeInstanceOf(PostgresConnectionError);
    await expect(store.list()).rejects.toBeInstanceOf(PostgresConnectionError);
    const bus = new PostgresMessageBus({ pool: proxied, sessions: store });
    await expect(bus.publishInboundDurable({ channel: 'c', chatId: '1', senderId: 'u', content: 'x' })).rejects.toBeInstanceOf(PostgresConnectionError);
    expect(await new PostgresSessionStore({ pool }).list()).not.toContain('gone:2');
  });
});
