import type { Pool } from 'pg';
import type { CronStore } from '@nanobot/runner';
import type { CronJob } from '@nanobot/runner';
import { checkout } from './checkout.js';
import { mapConnectionErrors } from './connection-errors.js';
import { guardPool } from './guard-pool.js';
import { quoteIdentifier } from './quote-identifier.js';

/** Options of `PostgresCronStore`. */
export interface PostgresCronStoreOptions {
  /** A `pg` pool (see `createPool`); the store never ends it. */
  pool: Pool;
  /** Schema holding the tables (default `nanobot`); `migrate(pool, schema)` must have run. */
  schema?: string;
}

/**
 * The `cron` tool's jobs in PostgreSQL, for workers sharing a database: one list in
 * `cron_jobs`, changed in a transaction that holds its row lock, so of several workers polling
 * the same jobs exactly one claims each occurrence (`CronService` claims before it fires).
 * Connection failures throw `PostgresConnectionError`; a failed change writes nothing.
 */
export class PostgresCronStore implements CronStore {
  readonly schema: string;
  readonly #pool: Pool;
  readonly #s: string;

  constructor(options: PostgresCronStoreOptions) {
    this.#pool = guardPool(options.pool);
    this.schema = options.schema ?? 'nanobot';
    this.#s = quoteIdentifier(this.schema);
  }

  read(): Promise<CronJob[]> {
    return mapConnectionErrors('reading cron jobs', async () => {
      const res = await this.#pool.query<{ jobs: CronJob[] }>(`select jobs from ${this.#s}.cron_jobs where id = 1`);
      return res.rows[0]?.jobs ?? [];
    });
  }

  update<T>(change: (jobs: CronJob[]) => { jobs: CronJob[] | null; value: T }): Promise<T> {
    return mapConnectionErrors('changing cron jobs', async () => {
      const { client, release } = await checkout(this.#pool);
      try {
        await client.query('begin');
        try {
          await client.query(`insert into ${this.#s}.cron_jobs (id, jobs) values (1, '[]') on conflict (id) do nothing`);
          const res = await client.query<{ jobs: CronJob[] }>(`select jobs from ${this.#s}.cron_jobs where id = 1 for update`);
          const { jobs, value } = change(res.rows[0]?.jobs ?? []);
          if (jobs !== null) await client.query(`update ${this.#s}.cron_jobs set jobs = $1 where id = 1`, [JSON.stringify(jobs)]);
          await client.query('commit');
          return value;
        } catch (error) {
          await client.query('rollback').catch(() => undefined);
          throw error;
        }
      } finally {
        release();
      }
    });
  }
}
