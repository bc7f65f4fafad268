import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import { CronService, type CronJobSpec, type CronRun } from '@nanobot/runner';
import { PostgresCronStore } from './postgres-cron-store.js';
import { freshDatabase } from './test-support/pg-test-env.js';

let pool: Pool;
beforeAll(async () => {
  ({ pool } = await freshDatabase('cron_test'));
});
afterAll(async () => {
  await pool.end();
});

const T0 = Date.UTC(2026, 11, 1, 8, 0, 0);
const spec: CronJobSpec = { name: 'tick', message: 'ping', schedule: { kind: 'every', everyMs: 60_000 }, deleteAfterRun: false, sessionKey: 'telegram:1', channel: 'telegram', chatId: '1' };

describe('PostgresCronStore', () => {
  it('keeps jobs across service instances; workers racing on one database fire each occurrence once', async () => {
    const now = { t: T0 };
    const fired: CronRun[] = [];
    const services = Array.from({ length: 4 }, () => new CronService({ store: new PostgresCronStore({ pool }), now: () => now.t, onFire: (run) => void fired.push(run) }));
    const job = await services[0].add(spec);
    expect((await services[3].list()).map((j) => j.id)).toEqual([job.id]);
    for (let minute = 1; minute <= 5; minute++) {
      now.t = T0 + minute * 60_000;
      await Promise.all(services.map((s) => s.tick()));
    }
    await Promise.all(services.map((s) => s.stop()));
    expect(fired.map((r) => r.runId)).toEqual([1, 2, 3, 4, 5].map((m) => `${job.id}:${T0 + m * 60_000}`));
    expect(await services[1].remove(job.id)).toBe('removed');
    expect(await services[2].list()).toEqual([]);
  });
});
