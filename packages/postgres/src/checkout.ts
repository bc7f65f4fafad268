import type { Pool, PoolClient } from 'pg';

/**
 * Takes a client from the pool with an error listener attached while it is checked out: a
 * connection that dies mid-query (server restart) emits 'error' on the client, which would
 * otherwise crash the process; the failing query rejects anyway. `release(true)` discards it.
 */
export async function checkout(pool: Pool): Promise<{ client: PoolClient; release: (broken?: boolean) => void }> {
  const client = await pool.connect();
  let failed = false;
  const onError = (): void => {
    failed = true;
  };
  client.on('error', onError);
  return {
    client,
    release(broken = false) {
      client.off('error', onError);
      client.release(broken || failed);
    },
  };
}
