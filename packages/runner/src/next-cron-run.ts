import { Cron } from 'croner';
import type { CronSchedule } from '@nanobot/tools';

/**
 * The first run of `schedule` strictly after `afterMs`, or `undefined` when there is none (a
 * one-off already past, an expression with no future match). `every` runs count from `anchorMs`
 * (the job's creation) so restarts keep the rhythm. Throws for an invalid cron expression. Pure.
 */
export function nextCronRun(schedule: CronSchedule, afterMs: number, anchorMs: number): number | undefined {
  switch (schedule.kind) {
    case 'every': {
      if (!(schedule.everyMs > 0)) throw new Error('every_seconds must be positive');
      const steps = Math.floor((afterMs - anchorMs) / schedule.everyMs) + 1;
      return anchorMs + Math.max(1, steps) * schedule.everyMs;
    }
    case 'at':
      return schedule.atMs > afterMs ? schedule.atMs : undefined;
    case 'cron': {
      const next = new Cron(schedule.expr, { timezone: schedule.tz, paused: true }).nextRun(new Date(afterMs));
      return next ? next.getTime() : undefined;
    }
  }
}
