import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Pool } from 'pg';
import { Logger, run, runMigrations } from 'graphile-worker';
import type { Job, JobHelpers, Runner, WorkerEvents } from 'graphile-worker';
import { ValidationError } from '@nanobot/schema';
import { AsyncQueue, inboundSessionKey, validateInbound } from '@nanobot/runner';
import type { AgentBus, InboundMessage, OutboundMessage, TurnOutcome } from '@nanobot/runner';
import { checkout } from './checkout.js';
import { mapConnectionErrors } from './connection-errors.js';
import { guardPool } from './guard-pool.js';
import { migrate } from './migrations.js';
import type { PostgresSessionStore } from './postgres-session-store.js';
import { quoteIdentifier } from './quote-identifier.js';

/** The graphile-worker task that runs one inbound message's turn. */
export const INBOUND_TASK = 'nanobot_inbound';

/** Which outbound messages a `consumeOutbound` call takes (all when omitted). */
export interface OutboundFilter {
  channel?: string;
  chatId?: string;
}

/** Options of {@link PostgresMessageBus}. */
export interface PostgresMessageBusOptions {
  /** A `pg` pool (see `createPool`); the bus never ends it. */
  pool: Pool;
  /** The session store the worker's loop uses: the bus tags its rows per turn and rolls back unfinished turns. */
  sessions: PostgresSessionStore;
  /** Schema of the nanobot tables (default: the store's schema). */
  schema?: string;
  /** Schema of graphile-worker's tables (default `graphile_worker`). */
  workerSchema?: string;
  /** Turns of different sessions this process runs at once (default 3, as `AgentLoop`). */
  concurrency?: number;
  /**
   * A worker whose heartbeat is older than this is dead: its locked jobs are unlocked for other
   * workers (graphile-worker's own expiry is 4 hours). Default 30 s.
   */
  lockTimeoutMs?: number;
  /** How often this process heartbeats and looks for dead workers (default lockTimeoutMs / 3). */
  heartbeatMs?: number;
  /** graphile-worker's poll interval when no notification arrives (default 1000 ms). */
  pollIntervalMs?: number;
  /** Outbound poll interval when no notification arrives (default 1000 ms). */
  outboundPollMs?: number;
  /** Attempts per inbound message before graphile-worker gives up on it (default 25). */
  maxAttempts?: number;
  /** Called (not awaited; must not throw) with failures that have no caller: a failed publish, a job error. */
  onError?: (error: unknown, context: { stage: string }) => void;
  /** Receives graphile-worker's log lines (called synchronously; must not throw). Default: dropped. */
  onLog?: (level: string, message: string) => void;
}

interface Attempt {
  inboundId: string;
  ordinal: number;
  pending: Promise<void>[];
  settle: (outcome: TurnOutcome) => void;
}

interface InboundRow {
  id: string;
  message: InboundMessage;
}

interface OutboundRow {
  id: string;
  message: OutboundMessage;
}

/** The inbound message's idempotency key: given, from the channel's message id, or random. */
function inboundId(message: InboundMessage): string {
  const given = message.metadata?.idempotency_key;
  if (typeof given === 'string' && given !== '') return given;
  const channelId = message.metadata?.message_id;
  if (typeof channelId === 'string' || typeof channelId === 'number') return `${message.channel}:${message.chatId}:${String(channelId)}`;
  return randomUUID();
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * The message bus across processes. Inbound messages are rows of `inbound` plus jobs on
 * graphile-worker, one named queue per session key: a session's messages run one at a time, in
 * publish order, on whichever worker takes them; different sessions run concurrently. Each
 * inbound message has an idempotency key (its id, also the job's `jobKey`) and a processed
 * marker, so a retried job (a crash, a lost connection) rolls back what its unfinished turn wrote
 * and runs it again, and a finished one is never answered twice. Outbound messages are rows of
 * `outbound` announced with NOTIFY; any process can `consumeOutbound` (each row is delivered
 * once), and a retried turn's outbound rows are deduplicated by (inbound id, ordinal).
 *
 * A process that only publishes and delivers needs no `startWorker()`; one that runs turns
 * starts an `AgentLoop` on this bus (with the same store as its `sessions`) and calls
 * `startWorker()`. Workers heartbeat; a worker silent for `lockTimeoutMs` is dead and its jobs
 * go to the others.
 */
export class PostgresMessageBus implements AgentBus {
  readonly #pool: Pool;
  readonly #sessions: PostgresSessionStore;
  readonly #schema: string;
  readonly #s: string;
  readonly #workerSchema: string;
  readonly #options: PostgresMessageBusOptions;
  readonly #inbound = new AsyncQueue<InboundMessage>();
  readonly #listeners = new Set<(message: OutboundMessage) => void>();
  readonly #settledListeners = new Set<(message: InboundMessage, outcome: TurnOutcome) => void>();
  readonly #attempts = new Map<string, Attempt>();
  readonly #settlers = new Map<InboundMessage, (outcome: TurnOutcome) => void>();
  readonly #publishing = new Set<Promise<unknown>>();
  readonly #processId = randomUUID();
  readonly #workerIds = new Set<string>();
  readonly #notified = new EventEmitter();
  #runner: Runner | null = null;
  #timer: NodeJS.Timeout | null = null;
  #listenClient: pg.Client | null = null;
  #listening = false;
  #closed = false;
  #restarting: Promise<void> | null = null;
  #ready: Promise<void> | null = null;

  constructor(options: PostgresMessageBusOptions) {
    this.#options = options;
    this.#pool = guardPool(options.pool);
    this.#sessions = options.sessions;
    this.#schema = options.schema ?? options.sessions.schema;
    this.#s = quoteIdentifier(this.#schema);
    this.#workerSchema = options.workerSchema ?? 'graphile_worker';
    quoteIdentifier(this.#workerSchema);
    this.#notified.setMaxListeners(0);
  }

  /** This process's id in the `workers` table. */
  get processId(): string {
    return this.#processId;
  }

  /**
   * Applies nanobot's and graphile-worker's migrations (idempotent; concurrent starts are safe).
   * Called by every other method that needs the tables; call it first to fail early with a
   * `PostgresSchemaError` or `PostgresConnectionError`.
   */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      await migrate(this.#pool, this.#schema);
      await mapConnectionErrors('migrating graphile-worker', () => runMigrations({ pgPool: this.#pool, schema: this.#workerSchema, logger: this.#logger() }));
    })();
    this.#ready.catch(() => {
      this.#ready = null;
    });
    return this.#ready;
  }

  #logger(): Logger {
    const onLog = this.#options.onLog;
    return new Logger(() => (level, message) => onLog?.(level, message));
  }

  #error(error: unknown, stage: string): void {
    try {
      this.#options.onError?.(error, { stage });
    } catch {
      // an error callback must not break the bus
    }
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#publishing.add(promise);
    void promise.then(
      () => this.#publishing.delete(promise),
      () => this.#publishing.delete(promise),
    );
    return promise;
  }

  /** Fire-and-forget form of {@link publishInboundDurable} (a failure goes to `onError`). */
  publishInbound(message: InboundMessage): void {
    this.#track(this.publishInboundDurable(message)).catch((error: unknown) => this.#error(error, 'publish_inbound'));
  }

  /**
   * Stores `message` and queues its job in one transaction; resolves with its id once both are
   * committed (the message is then acknowledged: it will be answered even if every worker dies
   * and comes back). Publishing the same id again (`metadata.idempotency_key`, or the channel's
   * `metadata.message_id`) does nothing. Rejects with `PostgresConnectionError` when the server is
   * unreachable (nothing was stored), and with `ValidationError` for a malformed message (nothing
   * stored either).
   */
  async publishInboundDurable(message: InboundMessage): Promise<string> {
    validateInbound(message);
    await this.ready();
    const id = inboundId(message);
    const key = inboundSessionKey(message);
    await mapConnectionErrors('publishing an inbound message', async () => {
      const { client, release } = await checkout(this.#pool);
      let broken = false;
      try {
        await client.query('begin');
        try {
          const inserted = await client.query(`insert into ${this.#s}.inbound (id, session_key, message) values ($1, $2, $3::json) on conflict (id) do nothing`, [
            id,
            key,
            JSON.stringify(message),
          ]);
          if (inserted.rowCount === 1) {
            await client.query(
              `select ${quoteIdentifier(this.#workerSchema)}.add_job($1, json_build_object('id', $2::text), queue_name => $3, max_attempts => $4, job_key => $2, job_key_mode => 'unsafe_dedupe')`,
              [INBOUND_TASK, id, `nanobot:${key}`, this.#options.maxAttempts ?? 25],
            );
          }
          await client.query('commit');
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
    return id;
  }

  /** Waits for the next inbound message this process's worker took (only after `startWorker()`). */
  consumeInbound(signal?: AbortSignal): Promise<InboundMessage> {
    return this.#inbound.take(signal);
  }

  /** Called by `AgentLoop` when the turn of a consumed message ended: lets its job finish. */
  settleInbound(message: InboundMessage, outcome: TurnOutcome): void {
    const settle = this.#settlers.get(message);
    if (!settle) return;
    this.#settlers.delete(message);
    for (const listener of this.#settledListeners) {
      try {
        listener(message, outcome);
      } catch {
        // a broken listener must not keep the job from finishing
      }
    }
    settle(outcome);
  }

  /**
   * Calls `listener` (synchronously; must not throw, must not mutate its arguments) whenever a
   * turn run by this process's worker ends, with the inbound message and the loop's outcome.
   */
  onSettled(listener: (message: InboundMessage, outcome: TurnOutcome) => void): () => void {
    this.#settledListeners.add(listener);
    return () => this.#settledListeners.delete(listener);
  }

  /**
   * Waits until inbound message `id` is processed (by any worker), then takes its turn's
   * undelivered outbound messages, in order, marking them delivered by this process. For a
   * client that published a message and wants exactly its answer. Rejects when `signal` aborts.
   */
  async awaitTurn(id: string, signal?: AbortSignal): Promise<OutboundMessage[]> {
    await this.ready();
    await this.#listen();
    for (;;) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      try {
        const done = await this.#pool.query(`select 1 from ${this.#s}.inbound where id = $1 and processed_at is not null`, [id]);
        if ((done.rowCount ?? 0) > 0) {
          const rows = await this.#pool.query<OutboundRow>(
            `update ${this.#s}.outbound set delivered_at = now(), delivered_by = $2
              where id in (select id from ${this.#s}.outbound where inbound_id = $1 and delivered_at is null for update skip locked)
              returning id, message`,
            [id, this.#processId],
          );
          return rows.rows.sort((a, b) => Number(a.id) - Number(b.id)).map((r) => r.message);
        }
      } catch (error) {
        this.#error(error, 'await_turn');
      }
      await this.#waitForNotify(signal);
    }
  }

  /**
   * Stores `message` for delivery and NOTIFYs listeners (asynchronously; a failure fails the
   * running turn's job, which is then retried, or goes to `onError` outside a turn). During a
   * worker turn the row carries the turn's (inbound id, ordinal), so a retried turn's messages are
   * stored once. Local `onOutbound` listeners are told at once.
   */
  publishOutbound(message: OutboundMessage): void {
    for (const listener of this.#listeners) {
      try {
        listener(message);
      } catch {
        // a broken listener must not lose the message
      }
    }
    const attempt = message.sessionKey !== undefined ? this.#attempts.get(message.sessionKey) : undefined;
    const ordinal = attempt ? attempt.ordinal++ : null;
    const write = this.#track(this.#insertOutbound(message, attempt?.inboundId ?? null, ordinal));
    if (attempt) attempt.pending.push(write);
    else write.catch((error: unknown) => this.#error(error, 'publish_outbound'));
  }

  async #insertOutbound(message: OutboundMessage, inboundId: string | null, ordinal: number | null): Promise<void> {
    await this.ready();
    await mapConnectionErrors('publishing an outbound message', async () => {
      await this.#pool.query(
        `with row as (
           insert into ${this.#s}.outbound (inbound_id, ordinal, channel, chat_id, session_key, message)
           values ($1, $2, $3, $4, $5, $6::json) on conflict (inbound_id, ordinal) do nothing returning id)
         select pg_notify($7, id::text) from row`,
        [inboundId, ordinal, message.channel, message.chatId, message.sessionKey ?? null, JSON.stringify(message), this.#channelName()],
      );
    });
  }

  #channelName(): string {
    return `${this.#schema}_outbound`;
  }

  /**
   * Takes the next undelivered outbound message (matching `filter`) and marks it delivered by this
   * process, so no other consumer gets it; waits (NOTIFY, else polling) until one arrives.
   * Rejects when `signal` aborts. Server outages are waited out, not thrown.
   */
  async consumeOutbound(signal?: AbortSignal, filter: OutboundFilter = {}): Promise<OutboundMessage> {
    await this.ready();
    await this.#listen();
    for (;;) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      let row: OutboundRow | undefined;
      try {
        const res = await this.#pool.query<OutboundRow>(
          `update ${this.#s}.outbound set delivered_at = now(), delivered_by = $1
            where id = (select id from ${this.#s}.outbound where delivered_at is null
                          and ($2::text is null or channel = $2) and ($3::text is null or chat_id = $3)
                        order by id limit 1 for update skip locked)
            returning id, message`,
          [this.#processId, filter.channel ?? null, filter.chatId ?? null],
        );
        row = res.rows[0];
      } catch (error) {
        this.#error(error, 'consume_outbound');
      }
      if (row) return row.message;
      await this.#waitForNotify(signal);
    }
  }

  /** Resolves on the next NOTIFY, after the poll interval, or when `signal` aborts; leaves no listener behind. */
  #waitForNotify(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.#notified.off('notify', wake);
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, this.#options.outboundPollMs ?? 1000);
      this.#notified.on('notify', wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }

  async #listen(): Promise<void> {
    if (this.#listening || this.#closed) return;
    this.#listening = true;
    const connect = async (): Promise<void> => {
      if (this.#closed) return;
      const client = new pg.Client(this.#clientConfig());
      client.on('error', () => undefined);
      client.on('notification', () => this.#notified.emit('notify'));
      client.on('end', () => {
        if (this.#listenClient === client) this.#listenClient = null;
        if (!this.#closed) setTimeout(() => void connect(), 500).unref();
      });
      try {
        await client.connect();
        await client.query(`listen ${quoteIdentifier(this.#channelName())}`);
        this.#listenClient = client;
        this.#notified.emit('notify');
      } catch {
        await client.end().catch(() => undefined);
      }
    };
    await connect();
  }

  #clientConfig(): pg.ClientConfig {
    const o = (this.#pool as unknown as { options: pg.PoolConfig }).options;
    return {
      ...(o.connectionString !== undefined ? { connectionString: o.connectionString } : {}),
      ...(o.host !== undefined ? { host: o.host } : {}),
      ...(o.port !== undefined ? { port: o.port } : {}),
      ...(o.user !== undefined ? { user: o.user } : {}),
      ...(typeof o.password === 'string' ? { password: o.password } : {}),
      ...(o.database !== undefined ? { database: o.database } : {}),
      connectionTimeoutMillis: 10_000,
    };
  }

  /** Calls `listener` (synchronously; must not throw) for every outbound message this process publishes. */
  onOutbound(listener: (message: OutboundMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Makes this process a worker: runs graphile-worker with `concurrency` slots, heartbeats, and
   * unlocks the jobs of dead workers. Each job hands its session's pending messages, in order, to
   * the `AgentLoop` consuming this bus, one turn at a time, and finishes once the turn has saved
   * and its reply is stored. Resolves once the worker runs.
   */
  async startWorker(): Promise<void> {
    if (this.#runner) return;
    await this.ready();
    await this.#startRunner();
    const every = this.#options.heartbeatMs ?? Math.max(200, Math.floor(this.#lockTimeout() / 3));
    await this.#heartbeat();
    this.#timer = setInterval(() => void this.#heartbeat(), every);
  }

  #lockTimeout(): number {
    return this.#options.lockTimeoutMs ?? 30_000;
  }

  async #startRunner(): Promise<void> {
    const events: WorkerEvents = new EventEmitter() as WorkerEvents;
    events.on('worker:create', ({ worker }) => this.#workerIds.add(worker.workerId));
    events.on('worker:fatalError', ({ worker, error }) => {
      // The worker could not release its job and is gone for good (graphile-worker does not replace
      // it): stop vouching for it, so the others unlock its job, and start a fresh pool.
      this.#workerIds.delete(worker.workerId);
      this.#error(error, 'worker');
      this.#restart();
    });
    this.#runner = await run({
      pgPool: this.#pool,
      schema: this.#workerSchema,
      concurrency: this.#options.concurrency ?? 3,
      pollInterval: this.#options.pollIntervalMs ?? 1000,
      noHandleSignals: true,
      logger: this.#logger(),
      events,
      taskList: { [INBOUND_TASK]: (payload: unknown, helpers: JobHelpers) => this.#runJob(payload, helpers.job) },
    });
  }

  #restart(): void {
    if (this.#restarting || this.#closed) return;
    const old = this.#runner;
    this.#runner = null;
    this.#restarting = (async () => {
      await old?.stop().catch(() => undefined);
      // The database may still be down: keep trying, backing off, until a pool runs again.
      for (let delay = 250; !this.#closed; delay = Math.min(delay * 2, 5000)) {
        try {
          await this.#startRunner();
          return;
        } catch (error) {
          this.#error(error, 'worker');
          await sleep(delay);
        }
      }
    })().finally(() => {
      this.#restarting = null;
    });
  }

  async #heartbeat(): Promise<void> {
    if (this.#closed) return;
    if (this.#runner === null) this.#restart();
    const lock = `${this.#lockTimeout()} milliseconds`;
    try {
      await this.#pool.query(
        `insert into ${this.#s}.workers (worker_id, process_id, heartbeat_at) select w, $2, now() from unnest($1::text[]) as w
           on conflict (worker_id) do update set heartbeat_at = now()`,
        [[...this.#workerIds], this.#processId],
      );
      // A worker that stopped heartbeating (killed, or lost with its connection) keeps its jobs
      // and its session's queue locked; hand them back (graphile-worker's own expiry is 4 hours).
      const ws = quoteIdentifier(this.#workerSchema);
      await this.#pool.query(
        `select ${ws}.force_unlock_workers(array(
           select distinct j.locked_by from ${ws}.jobs j
            where j.locked_by is not null and j.locked_at < now() - $1::interval
              and not exists (select 1 from ${this.#s}.workers w where w.worker_id = j.locked_by and w.heartbeat_at > now() - $1::interval)))`,
        [lock],
      );
      await this.#pool.query(`delete from ${this.#s}.workers where heartbeat_at < now() - 10 * $1::interval`, [lock]);
    } catch (error) {
      this.#error(error, 'heartbeat');
    }
  }

  /** One job: every unprocessed message of its session up to its own, oldest first. */
  async #runJob(payload: unknown, job: Job): Promise<void> {
    const id = typeof payload === 'object' && payload !== null ? (payload as { id?: unknown }).id : undefined;
    if (typeof id !== 'string') return; // not ours: nothing to do, never retried
    const rows = await mapConnectionErrors('fetching inbound messages', () =>
      this.#pool.query<InboundRow & { session_key: string }>(
        `select i.id, i.message, i.session_key from ${this.#s}.inbound i, ${this.#s}.inbound me
          where me.id = $1 and i.session_key = me.session_key and i.processed_at is null and i.position <= me.position
          order by i.position`,
        [id],
      ),
    );
    // Strict order: a retried job waits behind its backoff while later jobs of the queue may run
    // first; whichever job of the session runs takes the earlier messages before its own.
    for (const row of rows.rows) await this.#runOne(row.session_key, row, job);
  }

  async #runOne(key: string, row: InboundRow, job: Job): Promise<void> {
    const rolledBack = await this.#sessions.beginAttempt(key, row.id);
    if (rolledBack > 0) this.#options.onLog?.('warning', `nanobot: rolled back ${rolledBack} row(s) of an unfinished turn of inbound ${row.id} (session ${key}); running it again`);
    const message = row.message;
    try {
      const outcome = await new Promise<TurnOutcome>((resolve) => {
        this.#attempts.set(key, { inboundId: row.id, ordinal: 0, pending: [], settle: resolve });
        this.#settlers.set(message, resolve);
        this.#inbound.push(message);
      });
      const attempt = this.#attempts.get(key);
      await Promise.all(attempt?.pending ?? []);
      if (outcome.error instanceof ValidationError) {
        // A malformed message fails the same way every time: report it and do not retry it.
        this.#error(outcome.error, `inbound ${row.id} refused`);
      } else if (outcome.error !== undefined) {
        throw outcome.error;
      }
      if (outcome.result?.stopReason === 'aborted') throw new Error(`turn of inbound ${row.id} was interrupted (worker stopping); it will run again`);
      await mapConnectionErrors('marking an inbound message processed', () =>
        this.#pool.query(
          `with done as (update ${this.#s}.inbound set processed_at = now() where id = $1 and processed_at is null returning id)
           select pg_notify($2, 'processed:' || id) from done`,
          [row.id, this.#channelName()],
        ),
      );
    } catch (error) {
      this.#error(error, `job ${job.id}`);
      throw error;
    } finally {
      this.#settlers.delete(message);
      this.#attempts.delete(key);
      this.#sessions.endAttempt(key, row.id);
    }
  }

  /** Messages taken by this worker and waiting for the loop. */
  get inboundSize(): number {
    return this.#inbound.size;
  }

  /**
   * Stops the worker gracefully (running turns finish, nothing new is taken), waits for pending
   * publishes, and closes the LISTEN connection. Stop the `AgentLoop` afterwards. The pool stays open.
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#restarting;
    await this.#runner?.stop().catch((error: unknown) => this.#error(error, 'stop'));
    this.#runner = null;
    await Promise.allSettled([...this.#publishing]);
    if (this.#workerIds.size > 0) {
      await this.#pool.query(`delete from ${this.#s}.workers where process_id = $1`, [this.#processId]).catch(() => undefined);
    }
    const client = this.#listenClient;
    this.#listenClient = null;
    await client?.end().catch(() => undefined);
    this.#notified.emit('notify');
  }
}
