export { PostgresSessionStore } from './postgres-session-store.js';
export type { PostgresSessionStoreOptions } from './postgres-session-store.js';
export { PostgresMessageBus, INBOUND_TASK } from './postgres-message-bus.js';
export type { OutboundFilter, PostgresMessageBusOptions } from './postgres-message-bus.js';
export { migrate, MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
export { createPool } from './create-pool.js';
export type { CreatePoolOptions } from './create-pool.js';
export { PostgresConnectionError, PostgresSchemaError } from './errors.js';
export { isConnectionFailure } from './connection-errors.js';
