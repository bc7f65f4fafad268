import type { AgentBus, InboundMessage, OutboundMessage, TurnOutcome } from '@nanobot/runner';
import type { PostgresMessageBus, PostgresSessionStore } from '@nanobot/postgres';

/** Sessions and bus of the demo on PostgreSQL (`--database-url`). */
export interface WebDatabase {
  sessions: PostgresSessionStore;
  /** The bus as the page's agent uses it: outbound consumption limited to `channel`. */
  bus: AgentBus;
  /** The underlying bus (start the worker, publish durably, close). */
  postgres: PostgresMessageBus;
  /** Stops taking jobs (running turns finish); the pool stays open until `end`. */
  closeBus(): Promise<void>;
  end(): Promise<void>;
}

/**
 * Connects to `url`, migrates, and wraps the bus so that this demo only consumes outbound
 * messages of its own channel (other channels' rows are for their own deliverers). Rejects with
 * `ConfigurationError` for a malformed URL, `PostgresConnectionError` for an unreachable server
 * and `PostgresSchemaError` for a newer schema; nothing is left open then.
 */
export async function openWebDatabase(url: string, channel: string): Promise<WebDatabase> {
  const { createPool, PostgresMessageBus, PostgresSessionStore } = await import('@nanobot/postgres');
  const pool = await createPool({ url });
  const sessions = new PostgresSessionStore({ pool });
  const postgres = new PostgresMessageBus({ pool, sessions });
  try {
    await postgres.ready();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  const bus: AgentBus = {
    publishInbound: (message: InboundMessage) => postgres.publishInbound(message),
    consumeInbound: (signal?: AbortSignal) => postgres.consumeInbound(signal),
    publishOutbound: (message: OutboundMessage) => postgres.publishOutbound(message),
    // The page shows what it takes at once: acknowledged on the spot (else it would come back
    // after the bus's visibility timeout).
    consumeOutbound: async (signal?: AbortSignal) => {
      const delivery = await postgres.consumeOutbound(signal, { channel });
      await delivery.ack().catch(() => undefined);
      return delivery;
    },
    onOutbound: (listener: (message: OutboundMessage) => void) => postgres.onOutbound(listener),
    settleInbound: (message: InboundMessage, outcome: TurnOutcome) => postgres.settleInbound(message, outcome),
  };
  return {
    sessions,
    bus,
    postgres,
    closeBus: () => postgres.close(),
    end: () => pool.end().catch(() => undefined),
  };
}
