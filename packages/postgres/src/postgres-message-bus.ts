import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Pool } from 'pg';
import { Logger, runMigrations } from 'graphile-worker';
import type { Job } from 'graphile-worker';
import { ValidationError } from '@nanobot/schema';
import { AsyncQueue, inboundSessionKey, validateInbound } from '@nanobot/runner';
import type { AgentBus, InboundMessage, OutboundMessage, TurnOutcome } from '@nanobot/runner';
import type { PostgresBusEvent, PostgresBusHealth, PostgresBusLogger } from './bus-events.js';
import { isConnectionFailure, mapConnectionErrors } from './connection-errors.js';
import { InboundPublishError, PostgresConnectionError, SessionFencedError } from './errors.js';
import { guardPool } from './guard-pool.js';
import { inboundIdempotencyKey, storeInbound } from './inbound-rows.js';
import type { InboundTable } from './inbound-rows.js';
import { JobRunner } from './job-runner.js';
import { migrate } from './migrations.js';
import { claimOutbound, ackOutbound, insertOutbound, takeTurnOutbound } from './outbound-rows.js';
import type { OutboundDelivery, OutboundTable } from './outbound-rows.js';
import type { PostgresSessionStore } from './postgres-session-store.js';
import { quoteIdentifier } from './quote-identifier.js';
import { retryWhileLive, sleep } from './session-turn.js';
import type { SessionTurn, TurnState } from './session-turn.js';
import { heartbeat, releaseOrphanedLocks, takeOverDeadWorkers } from './worker-liveness.js';
import type { LivenessTables } from './worker-liveness.js';

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
  /**
   * The session store of the worker's `AgentLoop` — the very same instance (`createPostgresAgent`
   * wires both): the bus claims each turn's session through it, and a write from any other
   * store while a turn holds the session is refused with `SessionFencedError`.
   */
  sessions: PostgresSessionStore;
  /** Schema of the nanobot tables (default: the store's schema). */
  schema?: string;
  /** Schema of graphile-worker's tables (default `graphile_worker`). */
  workerSchema?: string;
  /** Turns of different sessions this process runs at once (default 3, as `AgentLoop`). */
  concurrency?: number;
  /**
   * The lease (default 4000 ms): a worker whose heartbeat is older than this is dead — its jobs
   * and sessions go to the others — and a worker that could not renew its lease for this long
   * minus one heartbeat stops its turns itself. A SIGKILLed worker's sessions are taken over
   * within about this plus one heartbeat. A job-runner slot silent for this long (at least 5 s) counts as deaf and is replaced.
   */
  lockTimeoutMs?: number;
  /** How often this process heartbeats, renews its leases and looks for dead workers (default lockTimeoutMs / 4). */
  heartbeatMs?: number;
  /** graphile-worker's poll interval when no notification arrives (default 1000 ms). */
  pollIntervalMs?: number;
  /** Outbound poll interval when no notification arrives (default 1000 ms). */
  outboundPollMs?: number;
  /** How long a handed-out outbound message waits for its `ack()` before it is handed out again (default 30 000 ms). */
  visibilityTimeoutMs?: number;
  /** Attempts per inbound message before graphile-worker gives up on it (default 25). */
  maxAttempts?: number;
  /** How long `close()` keeps retrying fire-and-forget publishes the database has not stored yet (default 10 000 ms). */
  publishGraceMs?: number;
  /** Called (not awaited; must not throw) with failures that have no caller: a failed publish, a job error. */
  onError?: (error: unknown, context: { stage: string }) => void;
  /**
   * Receives the bus's and graphile-worker's log lines. Default: warnings and errors to stderr,
   * the rest dropped.
   */
  onLog?: PostgresBusLogger;
}

interface InboundRow {
  id: string;
  message: InboundMessage;
}

/** A turn this process runs: its session's claim, and what it published. */
interface LiveTurn {
  turn: TurnState;
  message: InboundMessage;
  ordinal: number;
  pending: Promise<void>[];
  /** When its lease was last known renewed (`performance.now()` at the renewing request). */
  renewedAt: number;
  /** Resolves once the loop settled the message. */
  inLoop: Promise<void>;
  /** Its commit (processed marker, lease release) is under way: a lease found released is not a takeover. */
  committing: boolean;
}

const defaultLog: PostgresBusLogger = (level, message) => {
  if (level === 'warning' || level === 'error') process.stderr.write(`[nanobot/postgres] ${level}: ${message}\n`);
};

/**
 * The message bus across processes. Inbound messages are rows of `inbound` plus jobs on
 * graphile-worker, one named queue per session key: a session's messages run one at a time, in
 * publish order, on whichever worker takes them; different sessions run concurrently. Every turn
 * runs under a lease on its session with a fencing token that all its writes carry, so a worker
 * cut off and taken over can never write again. Each inbound message has an idempotency key and
 * a processed marker; outbound messages are rows delivered at least once, in order per chat,
 * until a consumer acknowledges them.
 *
 * A process that only publishes and delivers needs no `startWorker()`; one that runs turns starts
 * an `AgentLoop` on this bus with the same store as its `sessions` (see `createPostgresAgent`) and
 * calls `startWorker()`.
 */
export class PostgresMessageBus implements AgentBus {
  readonly #pool: Pool;
  readonly #sessions: PostgresSessionStore;
  readonly #schema: string;
  readonly #s: string;
  readonly #ws: string;
  readonly #workerSchema: string;
  readonly #options: PostgresMessageBusOptions;
  readonly #log: PostgresBusLogger;
  readonly #leaseMs: number;
  readonly #heartbeatMs: number;
  readonly #inbound = new AsyncQueue<InboundMessage>();
  readonly #listeners = new Set<(message: OutboundMessage) => void>();
  readonly #settledListeners = new Set<(message: InboundMessage, outcome: TurnOutcome) => void>();
  readonly #eventListeners = new Set<(event: PostgresBusEvent) => void>();
  readonly #live = new Map<string, LiveTurn>();
  readonly #settlers = new Map<InboundMessage, (outcome: TurnOutcome) => void>();
  readonly #publishing = new Map<string, Promise<void>>();
  readonly #writes = new Set<Promise<unknown>>();
  readonly #chatWrites = new Map<string, Promise<void>>();
  readonly #processId = randomUUID();
  readonly #notified = new EventEmitter();
  #jobs: JobRunner | null = null;
  #timer: NodeJS.Timeout | null = null;
  #beating = false;
  #lastBeatStart = -Infinity;
  #databaseOkAt: number | null = null;
  #leaseRenewals = 0;
  #lastRenewalAt: Date | null = null;
  #turnsCompleted = 0;
  #turnsFenced = 0;
  #listenClient: pg.Client | null = null;
  #listening = false;
  #closed = false;
  #publishDeadline = Infinity;
  #ready: Promise<void> | null = null;

  constructor(options: PostgresMessageBusOptions) {
    this.#options = options;
    this.#pool = guardPool(options.pool);
    this.#sessions = options.sessions;
    this.#schema = options.schema ?? options.sessions.schema;
    this.#s = quoteIdentifier(this.#schema);
    this.#workerSchema = options.workerSchema ?? 'graphile_worker';
    this.#ws = quoteIdentifier(this.#workerSchema);
    this.#log = options.onLog ?? defaultLog;
    this.#leaseMs = options.lockTimeoutMs ?? 4000;
    this.#heartbeatMs = options.heartbeatMs ?? Math.max(50, Math.floor(this.#leaseMs / 4));
    this.#notified.setMaxListeners(0);
  }

  /** This process's id in the `workers` table and as lease owner. */
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
      const logger = new Logger(() => (level, message) => this.#log(level as 'debug', `graphile-worker: ${message}`));
      await mapConnectionErrors('migrating graphile-worker', () => runMigrations({ pgPool: this.#pool, schema: this.#workerSchema, logger }));
    })();
    this.#ready.catch(() => {
      this.#ready = null;
    });
    return this.#ready;
  }

  #error(error: unknown, stage: string): void {
    try {
      this.#options.onError?.(error, { stage });
    } catch {
      // an error callback must not break the bus
    }
  }

  #emit(event: PostgresBusEvent): void {
    for (const listener of this.#eventListeners) {
      try {
        listener(event);
      } catch {
        // a broken listener must not break the bus
      }
    }
  }

  /** Calls `listener` (synchronously; must not throw or mutate the event) for everything the bus reports. */
  onEvent(listener: (event: PostgresBusEvent) => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#writes.add(promise);
    void promise.then(
      () => this.#writes.delete(promise),
      () => this.#writes.delete(promise),
    );
    return promise;
  }

  #inboundTable(): InboundTable {
    return { pool: this.#pool, s: this.#s, ws: this.#ws, task: INBOUND_TASK, maxAttempts: this.#options.maxAttempts ?? 25, idleMs: 5000 };
  }

  #outboundTable(): OutboundTable {
    return { pool: this.#pool, s: this.#s, channel: this.#channelName() };
  }

  /**
   * Publishes `message` without waiting; returns its idempotency key at once (see
   * `inboundIdempotencyKey`: given, from the channel's message id, or generated here, once). The
   * message is stored in the background and retried with that key while the database is
   * unreachable, so it is stored exactly once; `close()` waits for it up to `publishGraceMs`,
   * then reports it (`publish_failed` event and `onError`). Throws `ValidationError` (storing
   * nothing) for a malformed message.
   */
  publishInbound(message: InboundMessage): string {
    validateInbound(message);
    const id = inboundIdempotencyKey(message);
    const earlier = this.#publishing.get(id);
    const stored = (async () => {
      await earlier;
      for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
        try {
          await this.publishInboundDurable(message, { idempotencyKey: id });
          return;
        } catch (error) {
          if (!(error instanceof PostgresConnectionError) || performance.now() > this.#publishDeadline) {
            this.#emit({ type: 'publish_failed', idempotencyKey: id, error });
            this.#error(error, 'publish_inbound');
            return;
          }
          this.#emit({ type: 'publish_retry', idempotencyKey: id, error });
          await sleep(Math.min(delay, Math.max(0, this.#publishDeadline - performance.now())));
        }
      }
    })();
    this.#publishing.set(id, stored);
    void stored.finally(() => {
      if (this.#publishing.get(id) === stored) this.#publishing.delete(id);
    });
    return id;
  }

  /**
   * Stores `message` and queues its job in one transaction; resolves with its idempotency key
   * once both are committed (the message is then acknowledged: it will be answered even if every
   * worker dies and comes back). The key is `options.idempotencyKey`, else derived from the
   * message (`inboundIdempotencyKey`); publishing the same key again stores nothing. With
   * `options.signal`, a lost connection is retried (same key) until the signal aborts.
   * Rejects with `InboundPublishError` (a `PostgresConnectionError` carrying the key: publish again
   * with it) when the database could not confirm the commit, and with `ValidationError` (nothing
   * stored) for a malformed message.
   */
  async publishInboundDurable(message: InboundMessage, options: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<string> {
    validateInbound(message);
    const id = options.idempotencyKey ?? inboundIdempotencyKey(message);
    const key = inboundSessionKey(message);
    for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
      try {
        await this.ready();
        await storeInbound(this.#inboundTable(), id, key, message);
        return id;
      } catch (error) {
        if (!(error instanceof PostgresConnectionError)) throw error;
        if (!options.signal || options.signal.aborted) throw new InboundPublishError(id, { cause: error });
        await sleep(delay, options.signal);
      }
    }
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
   * undelivered outbound messages, in order, marking them delivered at once (no `ack` needed: for
   * a client that published a message and prints exactly its answer). Rejects when `signal` aborts.
   */
  async awaitTurn(id: string, signal?: AbortSignal): Promise<OutboundMessage[]> {
    await this.ready();
    await this.#listen();
    for (;;) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      try {
        const done = await this.#pool.query(`select 1 from ${this.#s}.inbound where id = $1 and processed_at is not null`, [id]);
        if ((done.rowCount ?? 0) > 0) return await takeTurnOutbound(this.#outboundTable(), id, this.#processId);
      } catch (error) {
        this.#error(error, 'await_turn');
      }
      await this.#waitForNotify(signal);
    }
  }

  /**
   * Stores `message` for delivery and NOTIFYs consumers (asynchronously). During a worker turn the
   * row carries the turn's (inbound id, ordinal) and fencing token: stored at most once however
   * often the write is retried, refused once the turn lost its session; the turn's job finishes
   * only after it is stored. Outside a turn a failure goes to `onError`. Local `onOutbound`
   * listeners are told at once.
   */
  publishOutbound(message: OutboundMessage): void {
    for (const listener of this.#listeners) {
      try {
        listener(message);
      } catch {
        // a broken listener must not lose the message
      }
    }
    const live = message.sessionKey !== undefined ? this.#live.get(message.sessionKey) : undefined;
    if (!live) {
      this.#inChatOrder(message, () => this.ready().then(() => insertOutbound(this.#outboundTable(), message, null))).catch((error: unknown) => this.#error(error, 'publish_outbound'));
      return;
    }
    const turn = live.turn;
    const ordinal = live.ordinal++;
    const write = this.#inChatOrder(message, () =>
      retryWhileLive(
        turn,
        async () => {
          const outcome = await insertOutbound(this.#outboundTable(), message, { inboundId: turn.inboundId, ordinal, epoch: turn.epoch });
          if (outcome === 'fenced') {
            turn.fence(`session "${turn.key}" was taken over before its answer was stored`);
            throw turn.error();
          }
          if (outcome === 'kept-earlier') this.#log('warning', `nanobot: outbound ${ordinal} of inbound ${turn.inboundId} was already released by an earlier attempt; that one is kept`);
        },
        (e) => e instanceof PostgresConnectionError,
      ),
    );
    write.catch(() => undefined);
    live.pending.push(write);
  }

  /** Runs `write` after this process's earlier writes to the same chat (row ids, hence delivery order, follow publish order). */
  #inChatOrder(message: OutboundMessage, write: () => Promise<unknown>): Promise<void> {
    const chat = `${message.channel}\u0000${message.chatId}`;
    const previous = this.#chatWrites.get(chat) ?? Promise.resolve();
    const next = this.#track(previous.then(write, write).then(() => undefined));
    const settled = next.catch(() => undefined);
    this.#chatWrites.set(chat, settled);
    void settled.then(() => {
      if (this.#chatWrites.get(chat) === settled) this.#chatWrites.delete(chat);
    });
    return next;
  }

  #channelName(): string {
    return `${this.#schema}_outbound`;
  }

  /**
   * Hands out the next outbound message (matching `filter`) at least once: it is handed out again
   * — to this or any consumer, with the same `deliveryId` — unless `ack()` is called within
   * `visibilityTimeoutMs`. A chat's messages go out in order: the next one only after the one
   * before it was acknowledged. Waits (NOTIFY, else polling) until one is there; server outages
   * are waited out, not thrown. Rejects when `signal` aborts.
   */
  async consumeOutbound(signal?: AbortSignal, filter: OutboundFilter = {}): Promise<OutboundDelivery> {
    await this.ready();
    await this.#listen();
    const visibility = this.#options.visibilityTimeoutMs ?? 30_000;
    for (;;) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      try {
        const delivery = await claimOutbound(this.#outboundTable(), this.#processId, filter, visibility);
        if (delivery) return delivery;
      } catch (error) {
        this.#error(error, 'consume_outbound');
      }
      await this.#waitForNotify(signal);
    }
  }

  /** Acknowledges outbound message `deliveryId` (what `delivery.ack()` does), e.g. from another process. */
  ack(deliveryId: string): Promise<void> {
    return ackOutbound(this.#outboundTable(), deliveryId, this.#processId);
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
   * Makes this process a worker: runs graphile-worker with `concurrency` slots (supervised:
   * restarted with backoff when it fails to start, stops, or stops taking jobs), heartbeats,
   * renews its turns' leases, and hands dead workers' jobs to the queue. Each job hands its
   * session's pending messages, in order, to the `AgentLoop` consuming this bus, one turn at a
   * time, and finishes once the turn has saved and its reply is stored. Resolves once the
   * worker is set up (its runner may still be starting: see `health()`); rejects only when the
   * migrations fail.
   */
  async startWorker(): Promise<void> {
    if (this.#jobs || this.#closed) return;
    await this.ready();
    const pollIntervalMs = this.#options.pollIntervalMs ?? 1000;
    this.#jobs = new JobRunner({
      pool: this.#pool,
      workerSchema: this.#workerSchema,
      concurrency: this.#options.concurrency ?? 3,
      pollIntervalMs,
      // A slot is deaf only after a silence the lease would not forgive either: whoever sets a long
      // lease (a loaded machine whose event loop stalls) gets the same patience here.
      stallMs: Math.max(5000, 3 * pollIntervalMs, this.#leaseMs),
      taskName: INBOUND_TASK,
      task: (payload, job) => this.#runJob(payload, job),
      log: this.#log,
      emit: (event) => this.#emit(event),
    });
    await this.#beat();
    this.#timer = setInterval(() => this.#tick(), Math.min(this.#heartbeatMs, 250));
    await this.#jobs.start();
  }

  #tick(): void {
    if (this.#closed) return;
    const now = performance.now();
    // A turn whose lease may have run out by the time others see it dead stops itself: one
    // heartbeat before the lease ends, measured from the request that last renewed it.
    const lost: string[] = [];
    for (const live of this.#live.values()) {
      if (live.turn.live && now - live.renewedAt > this.#leaseMs - this.#heartbeatMs) {
        lost.push(live.turn.key);
        live.turn.fence(`its lease could not be renewed for ${Math.round(now - live.renewedAt)} ms`);
      }
    }
    if (lost.length > 0) {
      this.#emit({ type: 'lease_lost', sessions: lost, silentMs: Math.round(now - Math.min(...[...this.#live.values()].map((l) => l.renewedAt))) });
      this.#log('warning', `nanobot: lease not renewed in time; stopped the turns of ${lost.join(', ')} (other workers take them over)`);
    }
    if (!this.#beating && now - this.#lastBeatStart >= this.#heartbeatMs) void this.#beat();
    this.#jobs?.check(this.#databaseOkAt);
  }

  /** One heartbeat: renew leases, then hand dead workers' jobs back and release orphaned locks. Never rejects. */
  async #beat(): Promise<void> {
    if (this.#beating || this.#closed) return;
    this.#beating = true;
    const sent = performance.now();
    this.#lastBeatStart = sent;
    const turns = [...this.#live.values()].filter((l) => l.turn.live);
    const tables: LivenessTables = { pool: this.#pool, s: this.#s, ws: this.#ws };
    try {
      const renewed = await heartbeat(tables, {
        processId: this.#processId,
        workerIds: this.#jobs?.workerIds ?? [],
        turns: turns.map((l) => ({ key: l.turn.key, epoch: l.turn.epoch })),
        leaseMs: this.#leaseMs,
        timeoutMs: this.#leaseMs,
      });
      this.#databaseOkAt = performance.now();
      this.#leaseRenewals += 1;
      this.#lastRenewalAt = new Date();
      for (const live of turns) {
        if (renewed.has(live.turn.key)) live.renewedAt = Math.max(live.renewedAt, sent);
        else if (!live.committing) live.turn.fence(`session "${live.turn.key}" was taken over by a newer turn`);
      }
      const dead = await takeOverDeadWorkers(tables, this.#leaseMs);
      if (dead.length > 0) {
        this.#emit({ type: 'takeover', workers: dead });
        this.#log('info', `nanobot: handed the jobs of ${dead.length} dead worker slot(s) back to the queue`);
      }
      if (this.#jobs) {
        const orphans = await releaseOrphanedLocks(tables, this.#jobs.workerIds, this.#jobs.activeJobIds(), this.#leaseMs);
        if (orphans > 0) this.#log('warning', `nanobot: released ${orphans} job lock(s) left by a lost job lookup`);
      }
    } catch (error) {
      this.#error(error, 'heartbeat');
      this.#log('debug', `nanobot: heartbeat failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.#beating = false;
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
    try {
      for (const row of rows.rows) await this.#runOne(row.session_key, row);
    } catch (error) {
      this.#error(error, `job ${job.id}`);
      // A turn that lost its session or its database did nothing wrong: its message must not
      // wait out graphile-worker's growing backoff (e^attempts seconds) nor use up its attempts.
      const key = rows.rows[0]?.session_key;
      const lostSession = error instanceof SessionFencedError && error.epoch !== null;
      if (key !== undefined && (lostSession || error instanceof PostgresConnectionError)) this.#reschedule(id, `nanobot:${key}`);
      throw error;
    }
  }

  /**
   * Queues inbound message `id` again, to run in a moment, under its job key: graphile-worker
   * retires the failing (locked) job and adds a fresh one, or brings a waiting one forward. If the
   * message was processed meanwhile, the new job does nothing. Retried briefly in the background
   * while the database is unreachable (the failed job's own retry remains otherwise).
   */
  #reschedule(id: string, queueName: string): void {
    const attempt = async (): Promise<void> => {
      for (let delay = 250; delay <= 4000 && !this.#closed; delay *= 2) {
        await sleep(delay);
        try {
          await this.#pool.query(
            `select ${this.#ws}.add_job($1, json_build_object('id', $2::text), queue_name => $3, run_at => now(), max_attempts => $4, job_key => $2, job_key_mode => 'replace')`,
            [INBOUND_TASK, id, queueName, this.#options.maxAttempts ?? 25],
          );
          return;
        } catch (error) {
          if (!isConnectionFailure(error)) return this.#error(error, 'reschedule');
        }
      }
    };
    void this.#track(attempt());
  }

  async #runOne(key: string, row: InboundRow): Promise<void> {
    // A turn of this session this process gave up may still be running in the loop: never two at once.
    await this.#live.get(key)?.inLoop;
    const turn = (await this.#sessions.beginAttempt(key, row.id, { owner: this.#processId, leaseMs: this.#leaseMs })) as TurnState;
    const claimedAt = performance.now();
    if (turn.processed) {
      this.#sessions.endAttempt(turn);
      return;
    }
    if (turn.rolledBack > 0) this.#log('warning', `nanobot: rolled back ${turn.rolledBack} row(s) of an unfinished turn of inbound ${row.id} (session ${key}); running it again`);
    const message = row.message;
    let loopDone = false;
    let jobDone = false;
    let settledByLoop!: () => void;
    const live: LiveTurn = { turn, message, ordinal: 0, pending: [], renewedAt: claimedAt, committing: false, inLoop: new Promise<void>((resolve) => (settledByLoop = resolve)) };
    // The turn stays bound (its writes refused once fenced) until both its job and its loop turn ended.
    const finish = (): void => {
      if (!loopDone || !jobDone) return;
      if (this.#live.get(key) === live) this.#live.delete(key);
      this.#sessions.endAttempt(turn);
    };
    this.#live.set(key, live);
    let fencedReject!: (error: unknown) => void;
    const fenced = new Promise<never>((_, reject) => (fencedReject = reject));
    fenced.catch(() => undefined);
    const offFenced = turn.onFenced((reason) => {
      this.#turnsFenced += 1;
      this.#emit({ type: 'turn_fenced', sessionKey: key, inboundId: row.id, reason });
      fencedReject(turn.error());
    });
    let completed = false;
    try {
      const outcome = await Promise.race([
        new Promise<TurnOutcome>((resolve) => {
          this.#settlers.set(message, (o) => {
            loopDone = true;
            settledByLoop();
            finish();
            resolve(o);
          });
          this.#inbound.push(message);
        }),
        fenced,
      ]);
      await Promise.race([Promise.all(live.pending), fenced]);
      if (outcome.error instanceof SessionFencedError) throw turn.live ? outcome.error : turn.error();
      if (outcome.error instanceof ValidationError) {
        // A malformed message fails the same way every time: report it and do not retry it.
        this.#error(outcome.error, `inbound ${row.id} refused`);
      } else if (outcome.error !== undefined) {
        throw outcome.error;
      }
      if (outcome.result?.stopReason === 'aborted') throw new Error(`turn of inbound ${row.id} was interrupted (worker stopping); it will run again`);
      live.committing = true;
      await retryWhileLive(turn, () => this.#markProcessed(turn), (e) => e instanceof PostgresConnectionError);
      completed = true;
      this.#turnsCompleted += 1;
    } finally {
      offFenced();
      if (!completed) {
        turn.fence(turn.fencedBecause ?? 'its job failed');
        await this.#sessions.releaseLease(turn);
      }
      jobDone = true;
      finish();
    }
  }

  /**
   * Commits the turn in one fenced statement: the processed marker, its outbound messages released
   * to consumers, the lease given back. Fences the turn when a newer one owns the session.
   */
  async #markProcessed(turn: SessionTurn): Promise<void> {
    const res = await mapConnectionErrors('marking an inbound message processed', () =>
      this.#pool.query<{ owned: string }>(
        `with rel as (update ${this.#s}.leases set owner = null, inbound_id = null, expires_at = null where session_key = $2 and epoch = $3 returning 1),
              done as (update ${this.#s}.inbound set processed_at = now() where id = $1 and processed_at is null and exists (select 1 from rel) returning id),
              out as (update ${this.#s}.outbound set visible_at = null where inbound_id = $1 and epoch = $3 and visible_at = 'infinity'::timestamptz
                        and exists (select 1 from rel) returning id),
              n as (select pg_notify($4, 'processed:' || $1) where exists (select 1 from done) or exists (select 1 from out))
         select (select count(*) from rel) as owned, (select count(*) from n) as notified`,
        [turn.inboundId, turn.key, turn.epoch, this.#channelName()],
      ),
    );
    if (Number(res.rows[0]!.owned) === 0) {
      (turn as TurnState).fence(`session "${turn.key}" was taken over before the turn was marked done`);
      throw (turn as TurnState).error();
    }
  }

  /** Messages taken by this worker and waiting for the loop. */
  get inboundSize(): number {
    return this.#inbound.size;
  }

  /** What this bus is doing and whether it works (what `nanobot worker` logs). */
  health(): PostgresBusHealth {
    const jobs = this.#jobs;
    const now = performance.now();
    const leaseHeld = jobs === null || (this.#databaseOkAt !== null && now - this.#databaseOkAt < this.#leaseMs);
    const lastPoll = jobs?.lastPollOk ?? null;
    const pollErrors = jobs?.pollErrors ?? 0;
    const status = this.#closed ? 'closed' : jobs === null ? 'idle' : jobs.running && leaseHeld && pollErrors < 2 ? 'ok' : 'degraded';
    return {
      status,
      worker: jobs !== null,
      runnerRunning: jobs?.running ?? false,
      runnerStarts: jobs?.starts ?? 0,
      lastPollAt: lastPoll === null ? null : new Date(Date.now() - (now - lastPoll)).toISOString(),
      pollErrors,
      jobsTaken: jobs?.jobsTaken ?? 0,
      turnsCompleted: this.#turnsCompleted,
      turnsFenced: this.#turnsFenced,
      activeTurns: [...this.#live.values()].filter((l) => l.turn.live).length,
      leaseRenewals: this.#leaseRenewals,
      lastLeaseRenewalAt: this.#lastRenewalAt?.toISOString() ?? null,
      leaseHeld,
      pendingPublishes: this.#publishing.size,
    };
  }

  /**
   * Stops the worker gracefully (running turns finish, nothing new is taken), waits for pending
   * publishes (fire-and-forget ones up to `publishGraceMs` while the database is unreachable),
   * and closes the LISTEN connection. Stop the `AgentLoop` afterwards. The pool stays open.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#publishDeadline = performance.now() + (this.#options.publishGraceMs ?? 10_000);
    await this.#jobs?.stop();
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await Promise.allSettled([...this.#publishing.values(), ...this.#writes]);
    if (this.#jobs) {
      await this.#pool.query(`delete from ${this.#s}.workers where process_id = $1`, [this.#processId]).catch((error: unknown) => {
        if (!isConnectionFailure(error)) this.#error(error, 'close');
      });
    }
    const client = this.#listenClient;
    this.#listenClient = null;
    await client?.end().catch(() => undefined);
    this.#notified.emit('notify');
  }
}
