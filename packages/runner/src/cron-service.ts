import { randomUUID } from 'node:crypto';
import type { CronJob, CronJobSpec, CronScheduler } from '@nanobot/tools';
import type { CronStore } from './json-cron-store.js';
import { nextCronRun } from './next-cron-run.js';

/** A due job handed to `onFire`, with the id of this run (unique per job and scheduled time). */
export interface CronRun {
  job: CronJob;
  runId: string;
  scheduledAtMs: number;
}

/** Options of `CronService`. */
export interface CronServiceOptions {
  store: CronStore;
  /**
   * Runs a due job (the agent publishes it into the job's session). Awaited; a throw marks the
   * run `error` with its message. Each run is claimed in the store first, so it fires in exactly
   * one of the processes sharing the store.
   */
  onFire: (run: CronRun) => void | Promise<void>;
  /** How often the store is checked for due jobs (default 1000 ms). */
  pollMs?: number;
  /** Clock (tests). */
  now?: () => number;
  /** Told of store and fire failures. Not awaited; must not throw. */
  onError?: (error: unknown) => void;
}

/**
 * The scheduler behind the `cron` tool: jobs in a `CronStore`, checked every `pollMs`; a due job
 * is claimed (its next run moved on, under the store's lock) and then fired, so several
 * processes on one store run each occurrence once, and a restart picks up where the store says.
 * Runs missed while no process was up fire once, not once per missed occurrence.
 */
export class CronService implements CronScheduler {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private readonly now: () => number;
  private readonly firing = new Set<Promise<void>>();

  constructor(private readonly options: CronServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  async add(spec: CronJobSpec): Promise<CronJob> {
    const createdAtMs = this.now();
    // Computing the first run also validates the schedule before anything is stored.
    const nextRunAtMs = nextCronRun(spec.schedule, createdAtMs, createdAtMs);
    if (nextRunAtMs === undefined) throw new Error(spec.schedule.kind === 'at' ? 'the time given in at is in the past' : 'the schedule has no future run');
    const job: CronJob = { ...spec, id: randomUUID().replace(/-/g, '').slice(0, 8), createdAtMs, state: { nextRunAtMs } };
    await this.options.store.update((jobs) => ({ jobs: [...jobs, job], value: undefined }));
    return job;
  }

  list(): Promise<CronJob[]> {
    return this.options.store.read();
  }

  remove(id: string): Promise<'removed' | 'not_found'> {
    return this.options.store.update((jobs) => {
      const kept = jobs.filter((j) => j.id !== id);
      return kept.length === jobs.length ? { jobs: null, value: 'not_found' as const } : { jobs: kept, value: 'removed' as const };
    });
  }

  /** Starts checking for due jobs (idempotent). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.options.pollMs ?? 1000);
    this.timer.unref();
    void this.tick();
  }

  /** Stops checking and waits for runs under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
    await Promise.allSettled([...this.firing]);
  }

  /** One check: claims every due job and fires it (exposed for tests and manual triggering). */
  tick(): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = this.claimAndFire()
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.ticking = undefined;
      });
    return this.ticking;
  }

  private async claimAndFire(): Promise<void> {
    const now = this.now();
    const runs = await this.options.store.update((jobs) => {
      const due: CronRun[] = [];
      let changed = false;
      const next = jobs.flatMap((job) => {
        const at = job.state.nextRunAtMs;
        if (at === undefined || at > now) return [job];
        changed = true;
        due.push({ job, runId: `${job.id}:${at}`, scheduledAtMs: at });
        if (job.deleteAfterRun) return [];
        let following: number | undefined;
        try {
          following = nextCronRun(job.schedule, now, job.createdAtMs);
        } catch {
          following = undefined;
        }
        return [{ ...job, state: { ...job.state, nextRunAtMs: following, lastRunAtMs: now } }];
      });
      return { jobs: changed ? next : null, value: due };
    });
    for (const run of runs) {
      const firing = this.fire(run);
      this.firing.add(firing);
      void firing.finally(() => this.firing.delete(firing));
    }
  }

  private async fire(run: CronRun): Promise<void> {
    let status: 'ok' | 'error' = 'ok';
    let error: string | undefined;
    try {
      await this.options.onFire(run);
    } catch (e) {
      status = 'error';
      error = e instanceof Error ? e.message : String(e);
      this.options.onError?.(e);
    }
    if (run.job.deleteAfterRun) return;
    await this.options.store
      .update((jobs) => {
        const i = jobs.findIndex((j) => j.id === run.job.id);
        if (i < 0) return { jobs: null, value: undefined };
        const copy = jobs.slice();
        const state = { ...copy[i].state, lastStatus: status };
        if (error === undefined) delete (state as { lastError?: string }).lastError;
        else (state as { lastError?: string }).lastError = error;
        copy[i] = { ...copy[i], state };
        return { jobs: copy, value: undefined };
      })
      .catch((e: unknown) => this.options.onError?.(e));
  }
}
