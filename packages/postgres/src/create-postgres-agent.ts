import type { Pool } from 'pg';
import { createAgent } from '@nanobot/runner';
import type { Agent, CreateAgentOptions } from '@nanobot/runner';
import { PostgresMessageBus } from './postgres-message-bus.js';
import type { PostgresMessageBusOptions } from './postgres-message-bus.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import type { PostgresSessionStoreOptions } from './postgres-session-store.js';

/** Options of {@link createPostgresAgent}: `createAgent`'s, with a pool instead of `sessions` and `bus`. */
export interface CreatePostgresAgentOptions extends Omit<CreateAgentOptions, 'sessions' | 'bus'> {
  /** A `pg` pool (see `createPool`); never ended by the agent. */
  pool: Pool;
  /** Schema of the nanobot tables (default `nanobot`). */
  schema?: string;
  /** Settings of the session store. */
  store?: Omit<PostgresSessionStoreOptions, 'pool' | 'schema'>;
  /** Settings of the bus. */
  busOptions?: Omit<PostgresMessageBusOptions, 'pool' | 'sessions' | 'schema'>;
}

/** A worker: the agent, its bus and its store, made for each other. */
export interface PostgresAgent {
  readonly agent: Agent;
  readonly bus: PostgresMessageBus;
  readonly sessions: PostgresSessionStore;
  /** Migrates, starts the loop and the worker (see `PostgresMessageBus.startWorker`). */
  start(): Promise<void>;
  /** Stops taking jobs (running turns finish), then stops the agent. The pool stays open. */
  stop(): Promise<void>;
}

/**
 * One worker of a PostgreSQL-backed agent, wired so that nothing can be mismatched: the loop and
 * the bus share one `PostgresSessionStore`, and a turn that loses its session (taken over by
 * another worker, or stopped because this worker could not renew its lease) is aborted in the
 * loop at once instead of running on with writes the database refuses.
 */
export function createPostgresAgent(options: CreatePostgresAgentOptions): PostgresAgent {
  const { pool, schema, store, busOptions, ...agentOptions } = options;
  const sessions = new PostgresSessionStore({ pool, ...(schema !== undefined ? { schema } : {}), ...store });
  const bus = new PostgresMessageBus({ pool, sessions, ...busOptions });
  const agent = createAgent({ ...agentOptions, sessions, bus });
  bus.onEvent((event) => {
    if (event.type === 'turn_fenced') agent.abort(event.sessionKey);
  });
  return {
    agent,
    bus,
    sessions,
    async start() {
      await bus.ready();
      agent.start();
      await bus.startWorker();
    },
    async stop() {
      await bus.close();
      await agent.stop();
    },
  };
}
