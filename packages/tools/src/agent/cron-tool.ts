import type { Tool } from '@nanobot/tools-core';
import { toTool } from '../tool/to-tool.js';
import type { BuiltinToolSpec, CallContext, Outcome } from '../tool/builtin-tool.js';
import { fail, ok } from '../tool/builtin-tool.js';

/** When a job runs: every N ms, on a cron expression in a time zone, or once at an instant. */
export type CronSchedule = { kind: 'every'; everyMs: number } | { kind: 'cron'; expr: string; tz: string } | { kind: 'at'; atMs: number };

/** What is known of a job's runs. */
export interface CronJobState {
  nextRunAtMs?: number;
  lastRunAtMs?: number;
  lastStatus?: 'ok' | 'error';
  lastError?: string;
}

/** A new job: what to tell the agent, when, and where the turn runs. */
export interface CronJobSpec {
  name: string;
  message: string;
  schedule: CronSchedule;
  /** One-off jobs are removed after their run. */
  deleteAfterRun: boolean;
  sessionKey: string;
  channel: string;
  chatId: string;
}

/** A stored job. */
export interface CronJob extends CronJobSpec {
  id: string;
  createdAtMs: number;
  state: CronJobState;
}

/**
 * Where `cron` keeps jobs (the runner's `CronService` implements it). Every method is awaited and
 * may throw (the tool reports the error); `add` rejects a schedule it cannot compute.
 */
export interface CronScheduler {
  add(spec: CronJobSpec): Promise<CronJob>;
  list(): Promise<CronJob[]>;
  remove(id: string): Promise<'removed' | 'not_found'>;
}

/** Arguments of `cron`. */
export interface CronArgs {
  action: 'add' | 'list' | 'remove';
  name?: string;
  message?: string;
  every_seconds?: number;
  cron_expr?: string;
  tz?: string;
  at?: string;
  job_id?: string;
}

/** Options of `createCronTool`. */
export interface CronToolOptions {
  scheduler: CronScheduler;
  /** IANA zone for cron expressions and naive `at` times without `tz` (default `UTC`). */
  defaultTimezone?: string;
}

/** Whether `tz` is an IANA time zone this runtime knows. */
export function isValidTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The instant of a naive `YYYY-MM-DDTHH:MM[:SS]` wall-clock time in `tz`, or NaN when unreadable. */
export function wallClockToMs(iso: string, tz: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$/.exec(iso.trim());
  if (!m) return NaN;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((v) => Number(v ?? 0));
  const guess = Date.UTC(y, mo - 1, d, h, mi, s);
  // The zone's offset at that moment, found from how the guess reads in the zone (twice, for DST edges).
  const offsetAt = (ms: number): number => {
    const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
    return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second)) - ms;
  };
  const first = guess - offsetAt(guess);
  return guess - offsetAt(first);
}

function formatTimestamp(ms: number, tz: string): string {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'longOffset' }).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const offset = String(parts.timeZoneName).replace(/^GMT$/, 'GMT+00:00').replace('GMT', '');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset} (${tz})`;
}

function formatTiming(schedule: CronSchedule, tz: string): string {
  if (schedule.kind === 'cron') return `cron: ${schedule.expr}${schedule.tz ? ` (${schedule.tz})` : ''}`;
  if (schedule.kind === 'every') {
    const ms = schedule.everyMs;
    if (ms % 3_600_000 === 0) return `every ${ms / 3_600_000}h`;
    if (ms % 60_000 === 0) return `every ${ms / 60_000}m`;
    if (ms % 1000 === 0) return `every ${ms / 1000}s`;
    return `every ${ms}ms`;
  }
  return `at ${formatTimestamp(schedule.atMs, tz)}`;
}

/**
 * `cron`: add, list and remove scheduled jobs that send a message into the session that created
 * them when they fire (every N seconds, a cron expression in a time zone, or once `at` an ISO
 * time). The reference's parameters and messages; per-action requirements are checked at run
 * time so the top-level schema stays plain. Jobs belong to the calling chat's session: `list`
 * and `remove` see only that session's jobs (the reference lists every job to every chat).
 */
export function createCronSpec(options: CronToolOptions): BuiltinToolSpec<CronArgs> {
  const defaultTz = options.defaultTimezone ?? 'UTC';
  const scheduler = options.scheduler;
  return {
    name: 'cron',
    description: `Schedule reminders and recurring tasks. Actions: add, list, remove. If tz is omitted, cron expressions and naive ISO times default to ${defaultTz}.`,
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', description: 'Action to perform', enum: ['add', 'list', 'remove'] },
        name: { type: 'string', description: "Optional short human-readable label for the job (e.g., 'weather-monitor', 'daily-standup'). Defaults to first 30 chars of message." },
        message: { type: 'string', description: "REQUIRED when action='add'. Instruction for the agent to execute when the job triggers (e.g., 'Send a reminder to WeChat: xxx' or 'Check system status and report'). Not used for action='list' or action='remove'." },
        every_seconds: { type: 'integer', description: 'Interval in seconds (for recurring tasks)' },
        cron_expr: { type: 'string', description: "Cron expression like '0 9 * * *' (for scheduled tasks)" },
        tz: { type: 'string', description: "Optional IANA timezone for cron expressions (e.g. 'America/Vancouver'). When omitted with cron_expr, the tool's default timezone applies." },
        at: { type: 'string', description: "ISO datetime for one-time execution (e.g. '2026-02-12T10:30:00'). Naive values use the tool's default timezone." },
        job_id: { type: 'string', description: "REQUIRED when action='remove'. Job ID to remove (obtain via action='list')." },
      },
      required: ['action'],
      description:
        'Action-specific parameters: add requires a non-empty message plus one schedule (every_seconds, cron_expr, or at); remove requires job_id; list only needs action. Per-action requirements are enforced at runtime (see field descriptions) so the top-level schema stays compatible with providers (e.g. OpenAI Codex/Responses) that reject oneOf/anyOf/allOf/enum/not at the root of function parameters.',
    },
    readOnly: false,
    exclusive: false,
    scopes: ['core'],
    async run(args, ctx) {
      try {
        if (args.action === 'add') return await add(args, ctx);
        if (args.action === 'list') return await list(ctx);
        if (args.action === 'remove') {
          const id = String(args.job_id ?? '').trim();
          if (!id) return fail('Error: job_id is required for remove');
          // Another chat's job reads as absent: one session can never see or remove another's.
          const mine = (await scheduler.list()).some((job) => job.id === id && job.sessionKey === ctx.sessionKey);
          return mine && (await scheduler.remove(id)) === 'removed' ? ok(`Removed job ${id}`) : fail(`Job ${id} not found`);
        }
        return ok(`Unknown action: ${String(args.action)}`);
      } catch (error) {
        return fail(`Error: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };

  async function add(args: CronArgs, ctx: CallContext): Promise<Outcome> {
    const message = typeof args.message === 'string' ? args.message : '';
    if (!message.trim()) {
      return fail('Error: cron action=\'add\' requires a non-empty \'message\' parameter describing what to do when the job triggers (e.g. the reminder text). Retry including message="...".');
    }
    if (!ctx.sessionKey || !ctx.channel || !ctx.chatId) return fail('Error: scheduled cron jobs must be created from a chat session');
    if (args.tz && !args.cron_expr) return fail('Error: tz can only be used with cron_expr');
    if (args.tz && !isValidTimezone(args.tz)) return fail(`Error: unknown timezone '${args.tz}'`);
    let schedule: CronSchedule;
    let deleteAfterRun = false;
    if (args.every_seconds) {
      if (!Number.isInteger(args.every_seconds) || args.every_seconds < 1) return fail('Error: every_seconds must be a positive integer');
      schedule = { kind: 'every', everyMs: args.every_seconds * 1000 };
    } else if (args.cron_expr) {
      const tz = args.tz || defaultTz;
      if (!isValidTimezone(tz)) return fail(`Error: unknown timezone '${tz}'`);
      schedule = { kind: 'cron', expr: args.cron_expr, tz };
    } else if (args.at) {
      const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(args.at.trim());
      if (!zoned && !isValidTimezone(defaultTz)) return fail(`Error: unknown timezone '${defaultTz}'`);
      const atMs = zoned ? Date.parse(args.at) : wallClockToMs(args.at, defaultTz);
      if (!Number.isFinite(atMs)) return fail(`Error: invalid ISO datetime format '${args.at}'. Expected format: YYYY-MM-DDTHH:MM:SS`);
      schedule = { kind: 'at', atMs };
      deleteAfterRun = true;
    } else {
      return fail('Error: either every_seconds, cron_expr, or at is required');
    }
    const job = await scheduler.add({
      name: args.name || [...message].slice(0, 30).join(''),
      message,
      schedule,
      deleteAfterRun,
      sessionKey: ctx.sessionKey,
      channel: ctx.channel,
      chatId: ctx.chatId,
    });
    return ok(`Created job '${job.name}' (id: ${job.id})`);
  }

  async function list(ctx: CallContext): Promise<Outcome> {
    const jobs = (await scheduler.list()).filter((job) => job.sessionKey === ctx.sessionKey);
    if (jobs.length === 0) return ok('No scheduled jobs.');
    const lines = jobs.map((job) => {
      const tz = job.schedule.kind === 'cron' ? job.schedule.tz : defaultTz;
      const parts = [`- ${job.name} (id: ${job.id}, ${formatTiming(job.schedule, tz)})`];
      if (job.state.lastRunAtMs) parts.push(`  Last run: ${formatTimestamp(job.state.lastRunAtMs, tz)} — ${job.state.lastStatus ?? 'unknown'}${job.state.lastError ? ` (${job.state.lastError})` : ''}`);
      if (job.state.nextRunAtMs) parts.push(`  Next run: ${formatTimestamp(job.state.nextRunAtMs, tz)}`);
      return parts.join('\n');
    });
    return ok(`Scheduled jobs:\n${lines.join('\n')}`);
  }
}

/** The `cron` tool, ready to register (see `createCronSpec`). */
export function createCronTool(options: CronToolOptions): Tool<CronArgs> {
  return toTool(createCronSpec(options));
}
