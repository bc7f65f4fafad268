import pg from 'pg';
import { ConfigurationError } from '@nanobot/schema';
import { mapConnectionErrors } from './connection-errors.js';
import { guardPool } from './guard-pool.js';

/** Options of {@link createPool}. */
export interface CreatePoolOptions {
  /** `postgres://user:password@host:port/database` (or `postgresql://`). */
  url: string;
  /** Connections in the pool (default 10). */
  max?: number;
  /** Give up connecting after this long (default 10 s). */
  connectTimeoutMs?: number;
  /** Application name shown in `pg_stat_activity` (default `nanobot`). */
  applicationName?: string;
}

/**
 * A `pg` pool for `url`, checked with one round trip so that a wrong URL fails here with one
 * `PostgresConnectionError` (a malformed URL with a `ConfigurationError`). Idle-client errors
 * (a server restart) are absorbed: the pool reconnects on the next query.
 */
export async function createPool(options: CreatePoolOptions): Promise<pg.Pool> {
  let parsed: URL;
  try {
    parsed = new URL(options.url);
  } catch (error) {
    throw new ConfigurationError(`Invalid database URL: expected postgres://user:password@host:port/database`, { cause: error });
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new ConfigurationError(`Invalid database URL scheme "${parsed.protocol}": expected postgres:// or postgresql://`);
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    application_name: options.applicationName ?? 'nanobot',
  });
  guardPool(pool);
  try {
    await mapConnectionErrors(`connecting to ${parsed.host}${parsed.pathname}`, () => pool.query('select 1'));
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return pool;
}
