import type { Pool } from 'pg';

const guarded = new WeakSet<Pool>();
const ignore = (): void => undefined;

/**
 * Makes a pool safe across server restarts: every client gets a permanent 'error' listener (a
 * connection that dies while checked out, idle, or mid-handshake emits 'error', which would
 * crash the process without one; the failing query rejects anyway). Idempotent.
 */
export function guardPool(pool: Pool): Pool {
  if (guarded.has(pool)) return pool;
  guarded.add(pool);
  pool.on('error', ignore);
  pool.on('connect', (client) => {
    client.on('error', ignore);
  });
  return pool;
}
