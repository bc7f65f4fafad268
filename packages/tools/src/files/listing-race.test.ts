// A racing process swaps a directory for a symlink pointing outside, and back, as fast as it
// can, while list_dir / find_files / grep walk it thousands of times: no name from outside may
// ever appear (the old path-based walk leaked them in about 3% of calls).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFindFilesTool } from './find-files-tool.js';
import { createGrepTool } from './grep-tool.js';
import { createListDirTool } from './list-dir-tool.js';
import { call } from '../test-support/run-tool.js';
import { createTempWorkspace, type TempWorkspace } from '../test-support/temp-workspace.js';

let ws: TempWorkspace;
let racer: ChildProcess | undefined;

const RACER = `
const { renameSync, symlinkSync, mkdirSync, writeFileSync } = require('node:fs');
const [ws, outside] = process.argv.slice(1);
mkdirSync(ws + '/real'); writeFileSync(ws + '/real/inside-file.txt', 'x');
symlinkSync(outside, ws + '/evil');
process.stdout.write('ready\\n');
for (;;) {
  try { renameSync(ws + '/real', ws + '/d'); renameSync(ws + '/d', ws + '/real'); } catch {}
  try { renameSync(ws + '/evil', ws + '/d'); renameSync(ws + '/d', ws + '/evil'); } catch {}
}`;

beforeEach(async () => {
  ws = await createTempWorkspace();
  await mkdir(join(ws.outside, 'outside-dir'));
  await writeFile(join(ws.outside, 'outside-dir', 'outside-nested.txt'), 'TOP SECRET\n');
  await writeFile(join(ws.outside, 'outside-name.txt'), 'TOP SECRET\n');
  racer = spawn(process.execPath, ['-e', RACER, ws.root, ws.outside], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => racer!.stdout!.once('data', () => resolve()));
});
afterEach(async () => {
  racer?.kill('SIGKILL');
  await new Promise((r) => racer?.once('exit', r));
  await ws.dispose();
});

const leaked = (text: string) => /outside-|secret\.txt|TOP SECRET/.test(text);

describe('listings cannot be raced out of the workspace', () => {
  it('list_dir, find_files and grep on a directory being swapped for an outside symlink: 0 names from outside', async () => {
    const list = createListDirTool();
    const find = createFindFilesTool();
    const grep = createGrepTool();
    let calls = 0;
    let leaks = 0;
    let sawInside = 0;
    let refused = 0;
    for (let i = 0; i < 1000; i++) {
      const outcomes = await Promise.all([
        call(list, { path: 'd' }, ws.ctx()),
        call(list, { path: 'd', recursive: true }, ws.ctx()),
        call(list, { path: '.', recursive: true }, ws.ctx()),
        call(find, { path: 'd' }, ws.ctx()),
        call(grep, { pattern: 'SECRET|x', path: 'd', output_mode: 'content' }, ws.ctx()),
      ]);
      for (const out of outcomes) {
        calls++;
        if (leaked(out.text)) leaks++;
        if (out.text.includes('inside-file.txt')) sawInside++;
        if (out.thrown) refused++;
      }
    }
    expect({ calls, leaks }).toEqual({ calls: 5000, leaks: 0 });
    // The race really ran: the directory was listed some times and refused (or gone) others.
    expect(sawInside).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
