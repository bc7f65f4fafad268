import type { Pool } from 'pg';
import { checkout } from './checkout.js';
import { mapConnectionErrors } from './connection-errors.js';
import { PostgresSchemaError } from './errors.js';
import { quoteIdentifier } from './quote-identifier.js';

/**
 * The schema, one entry per version; `s` is the quoted schema name. Never edit a released entry:
 * add a new one. Message, metadata and payload columns are `json` (not `jsonb`) so stored text
 * keeps its key order, which keeps replayed requests byte-identical (prompt caching).
 */
export const MIGRATIONS: readonly ((s: string) => string)[] = Object.freeze([
  (s) => `
    create table ${s}.sessions (
      key text primary key,
      created_at text not null,
      updated_at text not null,
      metadata json not null,
      last_consolidated integer not null default 0,
      provider_state json,
      meta_version bigint not null default 0,
      generation bigint not null default 0
    );
    create table ${s}.messages (
      session_key text not null references ${s}.sessions (key) on delete cascade,
      seq bigint not null,
      message json not null,
      inbound_id text,
      written_at timestamptz not null default now(),
      constraint messages_session_seq unique (session_key, seq)
    );
    create index messages_inbound on ${s}.messages (session_key, inbound_id) where inbound_id is not null;
    create table ${s}.inbound (
      id text primary key,
      position bigserial not null unique,
      session_key text not null,
      message json not null,
      published_at timestamptz not null default now(),
      processed_at timestamptz
    );
    create index inbound_pending on ${s}.inbound (session_key, position) where processed_at is null;
    create table ${s}.outbound (
      id bigserial primary key,
      inbound_id text,
      ordinal integer,
      channel text not null,
      chat_id text not null,
      session_key text,
      message json not null,
      created_at timestamptz not null default now(),
      delivered_at timestamptz,
      delivered_by text,
      constraint outbound_once unique (inbound_id, ordinal)
    );
    create index outbound_pending on ${s}.outbound (id) where delivered_at is null;
    create table ${s}.workers (
      worker_id text primary key,
      process_id text not null,
      heartbeat_at timestamptz not null default now()
    );
  `,
  // v2: the cron jobs of the `cron` tool, one list under a row lock (see PostgresCronStore).
  (s) => `
    create table ${s}.cron_jobs (
      id integer primary key check (id = 1),
      jobs json not null
    );
  `,
  // v3: fenced turns, unambiguous commits, acknowledged delivery. Upgrades a v2 database in place
  // (its rows, pending messages and jobs are kept): see the README's "Upgrading".
  (s) => `
    create table ${s}.leases (
      session_key text primary key,
      epoch bigint not null default 0,
      owner text,
      inbound_id text,
      expires_at timestamptz
    );
    alter table ${s}.messages add column epoch bigint, add column hash text;
    update ${s}.messages set hash = encode(sha256(convert_to(message::text, 'UTF8')), 'hex');
    alter table ${s}.sessions add column last_write text;
    alter table ${s}.outbound add column epoch bigint, add column hash text, add column claimed_by text,
      add column claimed_at timestamptz, add column visible_at timestamptz, add column deliveries integer not null default 0;
    update ${s}.outbound set hash = encode(sha256(convert_to(message::text, 'UTF8')), 'hex');
    update ${s}.outbound set claimed_by = delivered_by, claimed_at = delivered_at, deliveries = 1 where delivered_at is not null;
    create index outbound_chat_pending on ${s}.outbound (channel, chat_id, id) where delivered_at is null;
  `,
]);

/** The schema version this package writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings `schema` up to {@link SCHEMA_VERSION}, idempotently: one transaction under an advisory
 * lock (so workers starting together migrate once), each missing version applied in order.
 * Throws `PostgresSchemaError` before writing anything when the database is at a newer version,
 * and `PostgresConnectionError` when the server cannot be reached. Returns the version found.
 */
export async function migrate(pool: Pool, schema = 'nanobot'): Promise<number> {
  const s = quoteIdentifier(schema);
  return mapConnectionErrors('migrating the schema', async () => {
    const { client, release } = await checkout(pool);
    try {
      await client.query('begin');
      try {
        await client.query('select pg_advisory_xact_lock(hashtext($1))', [`nanobot-migrate:${schema}`]);
        const exists = await client.query<{ t: string | null }>('select to_regclass($1) as t', [`${s}.schema_version`]);
        let found = 0;
        if (exists.rows[0]?.t) {
          const row = await client.query<{ version: number }>(`select version from ${s}.schema_version where id = 1`);
          found = row.rows[0]?.version ?? 0;
        }
        if (found > SCHEMA_VERSION) throw new PostgresSchemaError(found, SCHEMA_VERSION, schema);
        if (found < SCHEMA_VERSION) {
          await client.query(`create schema if not exists ${s}`);
          await client.query(`create table if not exists ${s}.schema_version (id integer primary key check (id = 1), version integer not null, applied_at timestamptz not null default now())`);
          for (let v = found; v < SCHEMA_VERSION; v += 1) await client.query(MIGRATIONS[v]!(s));
          await client.query(
            `insert into ${s}.schema_version (id, version) values (1, $1) on conflict (id) do update set version = excluded.version, applied_at = now()`,
            [SCHEMA_VERSION],
          );
        }
        await client.query('commit');
        return found;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      }
    } finally {
      release();
    }
  });
}
