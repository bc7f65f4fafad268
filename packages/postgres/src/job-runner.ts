import { EventEmitter } from 'node:events';
import type { Pool } from 'pg';
import { Logger, run } from 'graphile-worker';
import type { Job, JobHelpers, Runner, WorkerEvents } from 'graphile-worker';
import type { PostgresBusEvent, PostgresBusLogger } from './bus-events.js';
import { retryingPoolFor } from './graphile-pool.js';
import { sleep } from './session-turn.js';

/** Settings of a {@link JobRunner}. */
export interface JobRunnerOptions {
  pool: Pool;
  workerSchema: string;
  concurrency: number;
  pollIntervalMs: number;
  /** A job-lookup slot that made no successful lookup for this long while the database answers is deaf. */
  stallMs: number;
  taskName: string;
  /** Runs one job (awaited; a rejection fails the job, which graphile-worker retries). */
  task: (payload: unknown, job: Job) => Promise<void>;
  log: PostgresBusLogger;
  emit: (event: PostgresBusEvent) => void;
}

/** One job-lookup slot of graphile-worker, as seen through its events. */
interface Slot {
  workerId: string;
  /** The runner generation it belongs to. */
  generation: number;
  createdAt: number;
  lastPollStart: number | null;
  lastPollOk: number | null;
  inFlight: boolean;
  /** Lookup failures in a row, and when the first of them happened. */
  errors: number;
  firstErrorAt: number | null;
  activeJob: string | null;
}

/**
 * Supervises graphile-worker for one bus: starts its runner, and starts a fresh one — with
 * backoff, reported as events — when the runner failed to start, stopped (its promise settled:
 * graphile-worker stops the whole runner when its cron loop fails, and a rejection nobody handles
 * would end the process), or went deaf: a slot whose lookups keep failing while the database
 * answers the bus's own queries (graphile-worker 0.16.6, like 0.17 and 0.18, caches a failed
 * first task-list lookup for the runner's lifetime), or an idle slot that stopped looking.
 * A replaced runner is stopped gracefully in the background: its running jobs finish.
 */
export class JobRunner {
  readonly #options: JobRunnerOptions;
  readonly #slots = new Map<string, Slot>();
  #runner: Runner | null = null;
  #generation = 0;
  #starting: Promise<void> | null = null;
  readonly #draining = new Set<Promise<void>>();
  #closing = false;
  #starts = 0;
  #failures = 0;
  #jobsTaken = 0;
  #lastPollOk: number | null = null;
  readonly #graphilePool: Pool;

  constructor(options: JobRunnerOptions) {
    this.#options = options;
    this.#graphilePool = retryingPoolFor(options.pool, () => this.#closing);
  }

  /** Ids of graphile-worker slots alive in this process (current and draining runners): the bus heartbeats them. */
  get workerIds(): string[] {
    return [...this.#slots.keys()];
  }

  /** Whether a runner is running (not starting, not between restarts). */
  get running(): boolean {
    return this.#runner !== null;
  }

  get starts(): number {
    return this.#starts;
  }

  get jobsTaken(): number {
    return this.#jobsTaken;
  }

  /** When a slot last looked for jobs successfully (ms, `performance.now()`), null before the first. */
  get lastPollOk(): number | null {
    return this.#lastPollOk;
  }

  /** Job-lookup failures in a row of the worst slot of the current runner. */
  get pollErrors(): number {
    let worst = 0;
    for (const slot of this.#slots.values()) if (slot.generation === this.#generation) worst = Math.max(worst, slot.errors);
    return worst;
  }

  /** Ids of the jobs this process runs right now. */
  activeJobIds(): string[] {
    return [...this.#slots.values()].flatMap((s) => (s.activeJob !== null ? [s.activeJob] : []));
  }

  /** Starts the runner; resolves after the first attempt (a failed one is retried in the background). */
  async start(): Promise<void> {
    if (this.#runner || this.#starting) return this.#starting ?? undefined;
    await this.#startOnce().catch((error: unknown) => this.#scheduleRestart('failed to start', error));
  }

  async #startOnce(): Promise<void> {
    const generation = ++this.#generation;
    const events: WorkerEvents = new EventEmitter() as WorkerEvents;
    const now = (): number => performance.now();
    const slot = (id: string): Slot | undefined => this.#slots.get(id);
    events.on('worker:create', ({ worker }) => {
      this.#slots.set(worker.workerId, { workerId: worker.workerId, generation, createdAt: now(), lastPollStart: null, lastPollOk: null, inFlight: false, errors: 0, firstErrorAt: null, activeJob: null });
    });
    events.on('worker:stop', ({ worker }) => {
      this.#slots.delete(worker.workerId);
    });
    events.on('worker:getJob:start', ({ worker }) => {
      const s = slot(worker.workerId);
      if (s) Object.assign(s, { lastPollStart: now(), inFlight: true });
    });
    const pollOk = (workerId: string): void => {
      const s = slot(workerId);
      if (s) Object.assign(s, { lastPollOk: now(), inFlight: false, errors: 0, firstErrorAt: null });
      this.#lastPollOk = now();
    };
    events.on('worker:getJob:empty', ({ worker }) => pollOk(worker.workerId));
    events.on('job:start', ({ worker, job }) => {
      pollOk(worker.workerId);
      this.#jobsTaken += 1;
      const s = slot(worker.workerId);
      if (s) s.activeJob = String(job.id);
    });
    events.on('job:complete', ({ worker }) => {
      const s = slot(worker.workerId);
      if (s) s.activeJob = null;
    });
    events.on('worker:getJob:error', ({ worker }) => {
      const s = slot(worker.workerId);
      if (!s) return;
      s.inFlight = false;
      s.errors += 1;
      s.firstErrorAt ??= now();
    });
    const log = this.#options.log;
    const runner = await run({
      pgPool: this.#graphilePool,
      schema: this.#options.workerSchema,
      concurrency: this.#options.concurrency,
      pollInterval: this.#options.pollIntervalMs,
      noHandleSignals: true,
      logger: new Logger(() => (level, message) => log(level as 'debug', `graphile-worker: ${message}`)),
      events,
      taskList: { [this.#options.taskName]: (payload: unknown, helpers: JobHelpers) => this.#options.task(payload, helpers.job) },
    });
    this.#runner = runner;
    this.#starts += 1;
    this.#failures = 0;
    this.#options.emit({ type: 'runner_started', starts: this.#starts });
    // Always handled: graphile-worker rejects this promise when its runner stops on an error.
    runner.promise.then(
      () => this.#stopped(runner, null),
      (error: unknown) => this.#stopped(runner, error),
    );
  }

  #stopped(runner: Runner, error: unknown): void {
    if (this.#runner !== runner || this.#closing) return;
    this.#runner = null;
    this.#scheduleRestart('stopped', error ?? new Error('graphile-worker runner stopped'));
  }

  /**
   * Looks for a deaf runner (called on every heartbeat): `databaseOkAt` is when the bus's own
   * query last succeeded. Restarts the runner when one of its slots keeps failing to look for
   * jobs although the database answered since the first failure, or an idle slot has not looked
   * for `stallMs`.
   */
  check(databaseOkAt: number | null): void {
    if (this.#closing || !this.#runner || this.#starting) return;
    const now = performance.now();
    const stall = this.#options.stallMs;
    for (const s of this.#slots.values()) {
      if (s.generation !== this.#generation || s.activeJob !== null) continue;
      const failing = s.errors >= 2 && s.firstErrorAt !== null && databaseOkAt !== null && databaseOkAt > s.firstErrorAt && now - s.firstErrorAt > stall;
      const silent = !s.inFlight && s.errors === 0 && now - Math.max(s.lastPollStart ?? s.createdAt, s.lastPollOk ?? 0) > stall + this.#options.pollIntervalMs;
      if (failing || silent) {
        this.#options.emit({ type: 'runner_deaf', idleMs: Math.round(now - (s.lastPollOk ?? s.createdAt)), pollErrors: s.errors });
        this.restart(failing ? 'its job lookups keep failing while the database answers' : 'a slot stopped looking for jobs');
        return;
      }
    }
  }

  /** Replaces the running runner with a fresh one (the old one finishes its jobs in the background). */
  restart(reason: string): void {
    if (this.#closing || this.#starting) return;
    const old = this.#runner;
    this.#runner = null;
    if (old) this.#drain(old);
    this.#scheduleRestart(reason, null);
  }

  #drain(runner: Runner): void {
    const stopping = runner.stop().catch((error: unknown) => this.#options.log('warning', `graphile-worker runner did not stop cleanly: ${String(error)}`));
    this.#draining.add(stopping);
    void stopping.finally(() => this.#draining.delete(stopping));
  }

  #scheduleRestart(reason: string, error: unknown): void {
    if (this.#closing || this.#starting) return;
    this.#starting = (async () => {
      let lastError = error;
      while (!this.#closing) {
        const delay = Math.min(250 * 2 ** this.#failures, 5000);
        this.#failures += 1;
        this.#options.emit({ type: 'runner_failed', reason, error: lastError, retryInMs: delay });
        this.#options.log('warning', `nanobot: job runner ${reason}${lastError ? `: ${lastError instanceof Error ? lastError.message : String(lastError)}` : ''}; starting a new one in ${delay} ms`);
        await sleep(delay);
        if (this.#closing) return;
        try {
          await this.#startOnce();
          return;
        } catch (e) {
          lastError = e;
          reason = 'failed to start';
        }
      }
    })().finally(() => {
      this.#starting = null;
    });
  }

  /** Stops for good: running jobs finish first. */
  async stop(): Promise<void> {
    this.#closing = true;
    await this.#starting;
    const runner = this.#runner;
    this.#runner = null;
    if (runner) this.#drain(runner);
    await Promise.allSettled([...this.#draining]);
  }
}
