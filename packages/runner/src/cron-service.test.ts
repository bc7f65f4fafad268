import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCronTool, type CronJobSpec } from '@nanobot/tools';
import { createToolContext, isToolResult } from '@nanobot/tools-core';
import { CronService, type CronRun } from './cron-service.js';
import { CronStoreError, JsonCronStore } from './json-cron-store.js';
import { nextCronRun } from './next-cron-run.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nanobot-cron-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 11, 1, 8, 0, 0);
const spec = (over: Partial<CronJobSpec> = {}): CronJobSpec => ({ name: 'n', message: 'ping', schedule: { kind: 'every', everyMs: 60_000 }, deleteAfterRun: false, sessionKey: 'telegram:1', channel: 'telegram', chatId: '1', ...over });

describe('nextCronRun', () => {
  it('every counts from the anchor; at is once; cron follows its time zone', () => {
    expect(nextCronRun({ kind: 'every', everyMs: 1000 }, T0 + 2500, T0)).toBe(T0 + 3000);
    expect(nextCronRun({ kind: 'at', atMs: T0 + 5 }, T0, T0)).toBe(T0 + 5);
    expect(nextCronRun({ kind: 'at', atMs: T0 }, T0, T0)).toBeUndefined();
    // Zones whose rules are settled (tz data changes, e.g. for British Columbia, would make this flaky).
    expect(new Date(nextCronRun({ kind: 'cron', expr: '0 9 * * *', tz: 'Asia/Tokyo' }, T0, T0)!).toISOString()).toBe('2026-12-02T00:00:00.000Z');
    expect(new Date(nextCronRun({ kind: 'cron', expr: '0 9 * * *', tz: 'America/New_York' }, T0, T0)!).toISOString()).toBe('2026-12-01T14:00:00.000Z');
    expect(() => nextCronRun({ kind: 'cron', expr: '61 * * * *', tz: 'UTC' }, T0, T0)).toThrow(/minute/);
  });
});

describe('CronService with a clock', () => {
  function service(now: { t: number }, fired: CronRun[]) {
    return new CronService({ store: new JsonCronStore(dir), now: () => now.t, onFire: (run) => void fired.push(run) });
  }

  it('fires a due job once per occurrence and moves it on; a one-off is removed after its run', async () => {
    const now = { t: T0 };
    const fired: CronRun[] = [];
    const cron = service(now, fired);
    const every = await cron.add(spec());
    await cron.add(spec({ name: 'once', schedule: { kind: 'at', atMs: T0 + 90_000 }, deleteAfterRun: true }));
    await cron.tick();
    expect(fired).toHaveLength(0);
    now.t = T0 + 60_000;
    await cron.tick();
    await cron.tick();
    expect(fired.map((r) => r.runId)).toEqual([`${every.id}:${T0 + 60_000}`]);
    now.t = T0 + 10 * 60_000; // missed occurrences fire once
    await cron.tick();
    expect(fired.map((r) => r.job.name)).toEqual(['n', 'n', 'once']);
    await cron.stop();
    const stored = await cron.list();
    expect(stored.map((j) => j.name)).toEqual(['n']);
    expect(stored[0].state).toMatchObject({ nextRunAtMs: T0 + 11 * 60_000, lastRunAtMs: T0 + 10 * 60_000, lastStatus: 'ok' });
  });

  it('a restart keeps the jobs and fires them; a failing run is recorded', async () => {
    const now = { t: T0 };
    const first = service(now, []);
    await first.add(spec());
    await first.stop();
    const fired: CronRun[] = [];
    const second = new CronService({ store: new JsonCronStore(dir), now: () => now.t, onFire: (run) => { fired.push(run); throw new Error('bus down'); }, onError: () => undefined });
    now.t = T0 + 60_000;
    await second.tick();
    await second.stop();
    expect(fired).toHaveLength(1);
    expect((await second.list())[0].state).toMatchObject({ lastStatus: 'error', lastError: 'bus down' });
  });

  it('rejects a schedule with no future run; a broken store is a typed error and is left alone', async () => {
    const cron = service({ t: T0 }, []);
    await expect(cron.add(spec({ schedule: { kind: 'at', atMs: T0 - 1 } }))).rejects.toThrow(/in the past/);
    await writeFile(join(dir, 'jobs.json'), '{ not json');
    await expect(cron.list()).rejects.toBeInstanceOf(CronStoreError);
    await expect(cron.add(spec())).rejects.toBeInstanceOf(CronStoreError);
    expect(await readFile(join(dir, 'jobs.json'), 'utf8')).toBe('{ not json');
  });
});

describe('the cron tool on a CronService', () => {
  const ctx = (chat: string) => createToolContext({ sessionKey: `telegram:${chat}`, channel: 'telegram', chatId: chat, workspace: dir });
  async function run(tool: ReturnType<typeof createCronTool>, args: Record<string, unknown>, chat = '1') {
    const value = await tool.execute(args as never, ctx(chat));
    return isToolResult(value) ? { text: String(value.content), isError: value.isError } : { text: String(value), isError: false };
  }

  it('adds, lists and removes jobs of the calling session only, with the reference messages', async () => {
    const cron = new CronService({ store: new JsonCronStore(dir), now: () => T0, onFire: () => undefined });
    const tool = createCronTool({ scheduler: cron, defaultTimezone: 'Europe/Oslo' });
    const added = await run(tool, { action: 'add', message: 'Stand-up in 5 minutes, everyone', cron_expr: '55 8 * * 1-5' });
    expect(added.text).toMatch(/^Created job 'Stand-up in 5 minutes, everyon' \(id: [0-9a-f]{8}\)$/);
    await run(tool, { action: 'add', name: 'water', message: 'drink', every_seconds: 3600 });
    await run(tool, { action: 'add', name: 'other-chat', message: 'x', every_seconds: 60 }, '2');
    const listed = await run(tool, { action: 'list' });
    expect(listed.text).toBe(
      'Scheduled jobs:\n' +
        `- Stand-up in 5 minutes, everyon (id: ${added.text.slice(-9, -1)}, cron: 55 8 * * 1-5 (Europe/Oslo))\n  Next run: 2026-12-02T08:55:00+01:00 (Europe/Oslo)\n` +
        `- water (id: ${(await cron.list())[1].id}, every 1h)\n  Next run: 2026-12-01T10:00:00+01:00 (Europe/Oslo)`,
    );
    const otherId = (await cron.list())[2].id;
    expect(await run(tool, { action: 'remove', job_id: otherId })).toEqual({ isError: true, text: `Job ${otherId} not found` });
    expect(await run(tool, { action: 'remove', job_id: otherId }, '2')).toEqual({ isError: false, text: `Removed job ${otherId}` });
    expect((await run(tool, { action: 'list' }, '3')).text).toBe('No scheduled jobs.');
  });

  it('one-off at times: naive in the default zone, or with an offset', async () => {
    const cron = new CronService({ store: new JsonCronStore(dir), now: () => T0, onFire: () => undefined });
    const tool = createCronTool({ scheduler: cron, defaultTimezone: 'America/New_York' });
    await run(tool, { action: 'add', message: 'call', at: '2026-12-24T10:30:00' });
    await run(tool, { action: 'add', message: 'call2', at: '2026-12-24T10:30:00Z' });
    const [a, b] = await cron.list();
    expect(a.schedule).toEqual({ kind: 'at', atMs: Date.UTC(2026, 11, 24, 15, 30) });
    expect(b.schedule).toEqual({ kind: 'at', atMs: Date.UTC(2026, 11, 24, 10, 30) });
    expect(a.deleteAfterRun).toBe(true);
  });

  it.each([
    [{ action: 'add', every_seconds: 5 }, `Error: cron action='add' requires a non-empty 'message' parameter describing what to do when the job triggers (e.g. the reminder text). Retry including message="...".`],
    [{ action: 'add', message: 'x' }, 'Error: either every_seconds, cron_expr, or at is required'],
    [{ action: 'add', message: 'x', tz: 'UTC', every_seconds: 5 }, 'Error: tz can only be used with cron_expr'],
    [{ action: 'add', message: 'x', cron_expr: '0 9 * * *', tz: 'Mars/Olympus' }, "Error: unknown timezone 'Mars/Olympus'"],
    [{ action: 'add', message: 'x', at: 'next tuesday' }, "Error: invalid ISO datetime format 'next tuesday'. Expected format: YYYY-MM-DDTHH:MM:SS"],
    [{ action: 'add', message: 'x', at: '2020-01-01T00:00:00' }, 'Error: the time given in at is in the past'],
    [{ action: 'add', message: 'x', cron_expr: '99 * * * *' }, /^Error: CronPattern: Invalid value for minute/],
    [{ action: 'remove' }, 'Error: job_id is required for remove'],
  ])('bad input %j → %s, nothing stored', async (args, message) => {
    const cron = new CronService({ store: new JsonCronStore(dir), now: () => T0, onFire: () => undefined });
    const out = await run(createCronTool({ scheduler: cron }), args);
    expect(out.isError).toBe(true);
    if (typeof message === 'string') expect(out.text).toBe(message);
    else expect(out.text).toMatch(message);
    expect(await cron.list()).toEqual([]);
  });

  it('refuses to schedule outside a chat session', async () => {
    const cron = new CronService({ store: new JsonCronStore(dir), onFire: () => undefined });
    const value = await createCronTool({ scheduler: cron }).execute({ action: 'add', message: 'x', every_seconds: 5 }, createToolContext({ sessionKey: '', channel: '', chatId: '' }));
    expect(isToolResult(value) && value.content).toBe('Error: scheduled cron jobs must be created from a chat session');
  });
});

describe('two processes on one store', () => {
  it('fire each occurrence once', async () => {
    const store = new JsonCronStore(dir);
    const start = Date.now();
    const cron = new CronService({ store, onFire: () => undefined });
    await cron.add(spec({ name: 'tick', schedule: { kind: 'every', everyMs: 700 } }));
    await cron.add(spec({ name: 'once', schedule: { kind: 'at', atMs: start + 1500 }, deleteAfterRun: true }));
    const log = join(dir, 'fires.log');
    const script = join(dir, 'worker.ts');
    await writeFile(script, `
      import { appendFileSync } from 'node:fs';
      import { CronService } from ${JSON.stringify(join(import.meta.dirname, 'cron-service.ts'))};
      import { JsonCronStore } from ${JSON.stringify(join(import.meta.dirname, 'json-cron-store.ts'))};
      const cron = new CronService({ store: new JsonCronStore(${JSON.stringify(dir)}), pollMs: 50, onFire: (run) => appendFileSync(${JSON.stringify(log)}, run.runId + ' ' + process.pid + '\\n') });
      cron.start();
      setTimeout(() => cron.stop().then(() => process.exit(0)), 3500);
    `);
    const worker = () => new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script], { cwd: join(import.meta.dirname, '..'), stdio: ['ignore', 'ignore', 'inherit'] });
      child.on('error', reject);
      child.on('exit', (code) => resolve(code ?? -1));
    });
    expect(await Promise.all([worker(), worker()])).toEqual([0, 0]);
    const lines = (await readFile(log, 'utf8')).trim().split('\n').map((l) => l.split(' '));
    const runIds = lines.map(([id]) => id);
    expect(new Set(runIds).size).toBe(runIds.length);
    expect(runIds.length).toBeGreaterThanOrEqual(3);
    const [tick, once] = await cron.list().then((jobs) => [jobs.find((j) => j.name === 'tick'), jobs.find((j) => j.name === 'once')]);
    expect(once).toBeUndefined();
    expect(runIds.filter((id) => !id.startsWith(tick!.id))).toHaveLength(1);
    expect(new Set(lines.map(([, pid]) => pid)).size).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
