import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXEC_MODES, eventually, execTool, sizeOf, stoppedGrowing, ticker } from '../test-support/exec-harness.js';
import { call } from '../test-support/run-tool.js';
import { createTempWorkspace, type TempWorkspace } from '../test-support/temp-workspace.js';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace();
});
afterEach(() => ws.dispose());

const exists = (p: string) => access(p).then(() => true, () => false);

// Every case holds in both modes; a job that outlived its call would keep appending to `ticks`.
describe.each(EXEC_MODES)('exec deadlines hold (sandbox: %s)', (mode) => {
  it('`set -m; sleep 8` with a 1 s timeout returns at the deadline, before the job could finish', async () => {
    const late = join(ws.root, 'late');
    const out = await call(execTool(mode), { command: `set -m; sleep 8; touch '${late}'`, timeout: 1 }, ws.ctx());
    expect(out.text).toBe('Error: Command timed out after 1 seconds');
    // Had the call waited for the job, the file would exist by now.
    expect(await exists(late)).toBe(false);
    // The same with the job in the background: it would touch the file 3 s in.
    const out2 = await call(execTool(mode), { command: `set -m; (sleep 3; touch '${late}') & wait`, timeout: 1 }, ws.ctx());
    expect(out2.text).toBe('Error: Command timed out after 1 seconds');
    await new Promise((r) => setTimeout(r, 2500));
    expect(await exists(late)).toBe(false);
  });

  it('a job in its own process group (set -m) holding the pipes dies at the timeout', async () => {
    const ticks = join(ws.root, 'ticks');
    const out = await call(execTool(mode), { command: `set -m; ${ticker(ticks)} & sleep 30`, timeout: 1 }, ws.ctx());
    expect(out.text).toBe('Error: Command timed out after 1 seconds');
    expect(await sizeOf(ticks)).toBeGreaterThan(0);
    expect(await stoppedGrowing(ticks)).toBe(true);
  });

  it('an abort returns at once and kills set -m jobs', async () => {
    const ticks = join(ws.root, 'ticks');
    const late = join(ws.root, 'late');
    const controller = new AbortController();
    const pending = call(execTool(mode), { command: `set -m; ${ticker(ticks)} & sleep 8; touch '${late}'` }, ws.ctx({ signal: controller.signal }));
    expect(await eventually(async () => (await sizeOf(ticks)) > 0)).toBe(true);
    controller.abort();
    const out = await pending;
    expect(out.text).toBe('Error: Command interrupted');
    expect(await exists(late)).toBe(false);
    expect(await stoppedGrowing(ticks)).toBe(true);
  });

  it('a detached job does not keep writing after the call returned', async () => {
    const ticks = join(ws.root, 'ticks');
    const out = await call(execTool(mode), { command: `set -m; ${ticker(ticks)} > /dev/null 2>&1 & sleep 0.3; echo started` }, ws.ctx());
    expect(out.text).toBe('started\n\n\nExit code: 0');
    expect(await stoppedGrowing(ticks)).toBe(true);
  });

  it('nohup and disown do not save a job either', async () => {
    const ticks = join(ws.root, 'ticks');
    const out = await call(execTool(mode), { command: `nohup sh -c "${ticker(ticks).replace(/'/g, '')}" > /dev/null 2>&1 & disown; sleep 0.3; echo ok` }, ws.ctx());
    expect(out.text).toBe('ok\n\n\nExit code: 0');
    expect(await stoppedGrowing(ticks)).toBe(true);
  });
});

describe('only the sandbox contains a process that leaves the session', () => {
  it('setsid + double fork dies with the sandbox', async () => {
    const ticks = join(ws.root, 'ticks');
    const out = await call(execTool('required'), { command: `setsid sh -c "(${ticker(ticks).replace(/'/g, '')}) &" ; sleep 0.3; echo ok` }, ws.ctx());
    expect(out.text).toBe('ok\n\n\nExit code: 0');
    expect(await sizeOf(ticks)).toBeGreaterThan(0);
    expect(await stoppedGrowing(ticks)).toBe(true);
  });
});
