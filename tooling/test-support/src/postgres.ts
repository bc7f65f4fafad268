export { startTestPostgres, createTestDatabase } from './test-postgres.js';
export type { TestPostgres } from './test-postgres.js';
