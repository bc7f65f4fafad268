import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { NanobotError } from '@nanobot/schema';
import type { CronJob } from '@nanobot/tools';

/** The cron store's file could not be read or written (not JSON, not a job list, disk error). */
export class CronStoreError extends NanobotError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('CRON_STORE_ERROR', message, options);
  }
}

/** Where cron jobs live. `update` runs `change` on the current jobs with every other writer excluded. */
export interface CronStore {
  read(): Promise<CronJob[]>;
  /** Awaited; `change` may return a new list (written atomically) and a value handed back. */
  update<T>(change: (jobs: CronJob[]) => { jobs: CronJob[] | null; value: T }): Promise<T>;
}

/**
 * Jobs in `<dir>/jobs.json` (next to the sessions), shared safely by several processes: every
 * change happens under a `proper-lockfile` lock (a lock directory with a heartbeat, taken over
 * when its owner stopped updating it for 10 s) and is written to a temporary file and renamed,
 * so a crash never leaves half a file and two processes never both claim one run.
 */
export class JsonCronStore implements CronStore {
  readonly file: string;

  constructor(readonly dir: string) {
    this.file = join(dir, 'jobs.json');
  }

  async read(): Promise<CronJob[]> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new CronStoreError(`Cannot read cron jobs from ${this.file}: ${(error as Error).message}`, { cause: error });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new CronStoreError(`Cron jobs file ${this.file} is not valid JSON; fix or remove it (nothing was changed).`, { cause: error });
    }
    const jobs = (parsed as { jobs?: unknown }).jobs;
    if (!Array.isArray(jobs)) throw new CronStoreError(`Cron jobs file ${this.file} has no "jobs" list; fix or remove it (nothing was changed).`);
    return jobs as CronJob[];
  }

  async update<T>(change: (jobs: CronJob[]) => { jobs: CronJob[] | null; value: T }): Promise<T> {
    await mkdir(this.dir, { recursive: true });
    const release = await lockfile.lock(this.dir, { lockfilePath: join(this.dir, 'jobs.lock'), stale: 10_000, update: 2_000, retries: { retries: 50, minTimeout: 20, maxTimeout: 200 } });
    try {
      const { jobs, value } = change(await this.read());
      if (jobs !== null) {
        const tmp = `${this.file}.${process.pid}.tmp`;
        await writeFile(tmp, `${JSON.stringify({ version: 1, jobs }, null, 2)}\n`);
        await rename(tmp, this.file);
      }
      return value;
    } finally {
      await release();
    }
  }
}
