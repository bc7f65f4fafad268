import type { Agent, AskOptions, TurnOutcome } from '@nanobot/runner';
import type { PostgresMessageBus, PostgresSessionStore } from '@nanobot/postgres';
import { CliError } from './cli-error.js';
import type { CliSessionStore } from './session-selection.js';

/** Sessions and bus of one invocation on PostgreSQL (`--database-url`). */
export interface CliDatabase {
  sessions: PostgresSessionStore & CliSessionStore;
  bus: PostgresMessageBus;
  /** `host:port/database` (no credentials), for messages. */
  where: string;
  /** Closes the bus (running turns finish) and the pool. Never rejects. */
  close(): Promise<void>;
}

const opened = new Map<string, Promise<CliDatabase>>();

/** Where `url` points, without user or password. */
export function databaseWhere(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return 'the database';
  }
}

/**
 * `leaseMs` is the session lease (see CliSettings.databaseLeaseMs; the bus's default when absent).
 * Connects to `url` once per invocation (the session check and the agent share the pool),
 * migrating the schema. Throws `CliError('CLI_SESSION')` with one line for a wrong URL, an
 * unreachable server or a schema from a newer nanobot.
 */
export function openCliDatabase(url: string, leaseMs?: number): Promise<CliDatabase> {
  const key = `${leaseMs ?? ''} ${url}`;
  let pending = opened.get(key);
  if (pending) return pending;
  pending = (async () => {
    const { createPool, PostgresMessageBus, PostgresSessionStore } = await import('@nanobot/postgres');
    const where = databaseWhere(url);
    let pool;
    try {
      pool = await createPool({ url, connectTimeoutMs: 10_000 });
    } catch (error) {
      throw new CliError('CLI_SESSION', `cannot use the database at ${where}: ${(error as Error).message}`, { cause: error });
    }
    const store = new PostgresSessionStore({ pool });
    const sessions = Object.assign(store, { pathFor: (key: string) => `postgres://${where} session "${key}"` });
    const bus = new PostgresMessageBus({ pool, sessions: store, ...(leaseMs !== undefined ? { lockTimeoutMs: leaseMs } : {}) });
    try {
      await bus.ready();
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new CliError('CLI_SESSION', `cannot use the database at ${where}: ${(error as Error).message}`, { cause: error });
    }
    let closing: Promise<void> | null = null;
    return {
      sessions,
      bus,
      where,
      close() {
        closing ??= (async () => {
          opened.delete(key);
          await bus.close().catch(() => undefined);
          await pool.end().catch(() => undefined);
        })();
        return closing;
      },
    };
  })();
  opened.set(key, pending);
  pending.catch(() => opened.delete(key));
  return pending;
}

/**
 * `Agent.ask` through the database: the message is published as a job (so it is serial with
 * every other worker's turns of that session), whichever worker takes it runs the turn (this
 * process is one), and the answer is taken from the outbound table. The outcome has the runner's
 * result when this process ran the turn, else null (`reply.metadata._stop_reason` says how it
 * ended). `/stop` acts on the turn running in this process, as in memory.
 */
export function databaseAsk(agent: Agent, bus: PostgresMessageBus): Agent['ask'] {
  return async (text: string, ask: AskOptions = {}): Promise<TurnOutcome> => {
    if (text.trim() === '/stop') return agent.ask(text, ask);
    const channel = ask.channel ?? 'cli';
    const chatId = ask.chatId ?? 'direct';
    const sessionKey = ask.sessionKey ?? `${channel}:${chatId}`;
    const idempotencyKey = `cli:${sessionKey}:${Date.now()}:${Math.random().toString(16).slice(2)}`;
    let local: TurnOutcome | null = null;
    const off = bus.onSettled((message, outcome) => {
      if (message.metadata?.idempotency_key === idempotencyKey) local = outcome;
    });
    try {
      const id = await bus.publishInboundDurable({
        channel,
        chatId,
        senderId: ask.senderId ?? 'user',
        content: text,
        sessionKeyOverride: sessionKey,
        metadata: { idempotency_key: idempotencyKey },
        ...(ask.media !== undefined ? { media: ask.media } : {}),
      });
      const delivered = await bus.awaitTurn(id);
      const settled = local as TurnOutcome | null;
      const reply = settled?.reply ?? delivered.filter((m) => m.chatId === chatId && m.event !== 'message_tool').at(-1) ?? null;
      return { sessionKey, result: settled?.result ?? null, reply };
    } finally {
      off();
    }
  };
}
