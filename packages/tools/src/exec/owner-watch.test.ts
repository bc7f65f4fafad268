import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OWNER_WATCH_SCRIPT, withOwnerWatch } from './owner-watch.js';
import { eventually, execTool, isGone, killMarked, processesWith, uniqueSleep } from '../test-support/exec-harness.js';
import { call } from '../test-support/run-tool.js';
import { createTempWorkspace, type TempWorkspace } from '../test-support/temp-workspace.js';

let ws: TempWorkspace;
const markers: string[] = [];
beforeEach(async () => {
  ws = await createTempWorkspace();
});
afterEach(async () => {
  for (const marker of markers.splice(0)) await killMarked(marker);
  await ws.dispose();
});

describe('withOwnerWatch', () => {
  it('runs the command through the watching sh, which execs it with its own arguments', () => {
    const args = Object.freeze(['-c', 'echo hi']);
    const watched = withOwnerWatch('bash', args, '/usr/bin:/bin');
    expect(watched).toEqual({ file: '/bin/sh', args: ['-c', OWNER_WATCH_SCRIPT, 'nanobot-exec-watch', 'bash', '-c', 'echo hi'], watched: true });
    expect(args).toEqual(['-c', 'echo hi']);
  });

  it('leaves a program that cannot be executed alone, so its spawn fails as it would unwatched', () => {
    expect(withOwnerWatch('/no/such/shell', ['-c', 'x'], '/usr/bin:/bin')).toEqual({ file: '/no/such/shell', args: ['-c', 'x'], watched: false });
    expect(withOwnerWatch('no-such-shell-anywhere', ['-c', 'x'], '/usr/bin:/bin').watched).toBe(false);
    expect(withOwnerWatch('bash', ['-c', 'x'], '').watched).toBe(false);
  });
});

describe('the owner watch of a finished call', () => {
  it('kills jobs the command left behind when released without keepBackgroundJobs, leaves them (and goes) with it', { timeout: 60_000 }, async () => {
    for (const keep of [false, true]) {
      const marker = uniqueSleep();
      markers.push(marker);
      const pidFile = join(ws.root, `bg-${keep}`);
      const out = await call(execTool('none', { keepBackgroundJobs: keep }), { command: `(sleep ${marker} > /dev/null 2>&1 & echo $! > ${pidFile})` }, ws.ctx());
      expect(out.text).toContain('Exit code: 0');
      const job = Number((await readFile(pidFile, 'utf8')).trim());
      // The watch (its argv holds the command) is gone either way; only a kept job remains.
      expect(await eventually(async () => (await processesWith(marker)).join() === (keep ? String(job) : ''))).toBe(true);
      expect(await isGone(job)).toBe(!keep);
    }
  });
});
