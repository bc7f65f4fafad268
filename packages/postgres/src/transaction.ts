import type { Pool, PoolClient } from 'pg';
import { checkout } from './checkout.js';
import { mapConnectionErrors } from './connection-errors.js';

/**
 * Runs `fn` in one transaction on a client of `pool`; a connection failure becomes one
 * `PostgresConnectionError` naming `what`. The server ends the session when the transaction sits
 * idle for `idleTimeoutMs` (a client cut off by a partition must not hold its row locks while
 * other workers wait to take its session over); our transactions never wait between statements.
 * A client whose rollback failed is discarded.
 */
export async function inTransaction<T>(pool: Pool, what: string, idleTimeoutMs: number, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  return mapConnectionErrors(what, async () => {
    const { client, release } = await checkout(pool);
    let broken = false;
    try {
      await client.query(`begin isolation level read committed; set local idle_in_transaction_session_timeout = ${Math.max(1, Math.floor(idleTimeoutMs))}`);
      try {
        const result = await fn(client);
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => {
          broken = true;
        });
        throw error;
      }
    } finally {
      release(broken);
    }
  });
}
