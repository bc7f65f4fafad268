import type { TestProject } from 'vitest/node';
import { startTestPostgres } from '@nanobot-internal/test-support/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the test server's `postgres` database. */
    postgresUrl: string;
  }
}

/** One real PostgreSQL server for the whole run: `NANOBOT_TEST_DATABASE_URL`, or an embedded one. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTestPostgres();
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
