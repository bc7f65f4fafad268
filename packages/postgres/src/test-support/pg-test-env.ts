import { inject } from 'vitest';
import type { Pool } from 'pg';
import { createTestDatabase } from '@nanobot-internal/test-support/postgres';
import { createPool } from '../create-pool.js';
import { migrate } from '../migrations.js';

/** A fresh migrated database on the run's server, for one test file. */
export async function freshDatabase(name: string): Promise<{ url: string; pool: Pool }> {
  const url = await createTestDatabase(inject('postgresUrl'), name);
  const pool = await createPool({ url });
  await migrate(pool);
  return { url, pool };
}
