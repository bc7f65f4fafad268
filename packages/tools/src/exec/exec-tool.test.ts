import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecTool, execSandboxStatus } from './exec-tool.js';
import { SsrfBlockedError } from '../web/ssrf-blocked-error.js';
import { EXEC_MODES, eventually, execTool, isGone } from '../test-support/exec-harness.js';
import { call } from '../test-support/run-tool.js';
import { createTempWorkspace, type TempWorkspace } from '../test-support/temp-workspace.js';
import { WorkspaceViolationError } from '../workspace/workspace-violation-error.js';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace();
});
afterEach(() => ws.dispose());

describe.each(EXEC_MODES)('exec output (sandbox: %s)', (mode) => {
  it('returns stdout, STDERR and the exit code in the reference layout', async () => {
    const out = await call(execTool(mode), { command: 'echo out; echo err 1>&2; exit 3' }, ws.ctx());
    expect(out.isError).toBe(false);
    expect(out.text).toBe('out\n\nSTDERR:\nerr\n\n\nExit code: 3');
  });

  it('always ends with the exit code, even with no output', async () => {
    const out = await call(execTool(mode), { command: 'true' }, ws.ctx());
    expect(out.text).toBe('\nExit code: 0');
  });

  it('a command killed by a signal reports it (unboxed: -N as Python; boxed: 128+N as bwrap reports it)', async () => {
    const out = await call(execTool(mode), { command: 'kill -TERM $$' }, ws.ctx());
    expect(out.text).toBe(mode === 'none' ? '\nExit code: -15' : '\nExit code: 143');
  });

  it('runs in the workspace (or working_dir inside it)', async () => {
    await ws.write('sub/marker.txt', 'm');
    expect((await call(execTool(mode), { command: 'pwd' }, ws.ctx())).text).toContain(ws.root);
    expect((await call(execTool(mode), { command: 'ls', working_dir: 'sub' }, ws.ctx())).text).toContain('marker.txt');
  });

  it('cuts long output in the middle with the truncation marker', async () => {
    const out = await call(execTool(mode), { command: 'head -c 30000 /dev/zero | tr "\\0" a', max_output_chars: 1000 }, ws.ctx());
    expect(out.text).toContain('chars truncated');
    expect(out.text.startsWith('a'.repeat(500))).toBe(true);
    expect(out.text.endsWith('Exit code: 0')).toBe(true);
    // 30000 a's + "\n\nExit code: 0" (14 chars) - 1000 budget.
    expect(out.text).toContain('... (29,014 chars truncated) ...');
  });

  it('keeps memory bounded for huge output and still counts what it dropped', async () => {
    const out = await call(execTool(mode), { command: 'head -c 3000000 /dev/zero | tr "\\0" b' }, ws.ctx());
    expect(out.text.length).toBeLessThan(10_100);
    expect(out.text).toContain('(2,990,014 chars truncated)');
  });

  it('does not inherit secrets from the environment', async () => {
    process.env.NANOBOT_TEST_SECRET = 'hunter2';
    try {
      const out = await call(execTool(mode), { command: 'echo "[$NANOBOT_TEST_SECRET]"' }, ws.ctx());
      expect(out.text).toContain('[]');
      const allowed = await call(execTool(mode, { allowedEnvKeys: ['PATH', 'NANOBOT_TEST_SECRET'] }), { command: 'echo "[$NANOBOT_TEST_SECRET]"' }, ws.ctx());
      expect(allowed.text).toContain('[hunter2]');
    } finally {
      delete process.env.NANOBOT_TEST_SECRET;
    }
  });

  it('caps the per-call timeout at 600 s in the schema', () => {
    const schema = execTool(mode).jsonSchema as { properties: { timeout: { maximum: number } } };
    expect(schema.properties.timeout.maximum).toBe(600);
  });

  it('blocks deny-listed commands as plain errors', async () => {
    for (const command of ['rm -rf /', 'rm -fr build', 'dd if=/dev/zero of=x', 'shutdown now', ':(){ :|:& };:', 'echo x >> memory/history.jsonl']) {
      const out = await call(execTool(mode, { restrictToWorkspace: false }), { command }, ws.ctx());
      expect(out.thrown).toBeUndefined();
      expect(out.text).toBe('Error: Command blocked by deny pattern filter');
    }
  });

  it('refuses a working_dir outside the workspace', async () => {
    const out = await call(execTool(mode), { command: 'ls', working_dir: ws.outside }, ws.ctx());
    expect(out.thrown).toBeInstanceOf(WorkspaceViolationError);
    expect(out.text).toContain('working_dir is outside the configured workspace');
  });

  it('refuses URLs that resolve to private addresses with a typed SSRF error', async () => {
    const lookup = async () => [{ address: '10.0.0.1', family: 4 as const }];
    const tool = execTool(mode, { ssrf: { lookup } });
    for (const command of ['curl http://169.254.169.254/latest/meta-data', 'curl http://internal.example/', 'wget http://[::ffff:127.0.0.1]/']) {
      const out = await call(tool, { command }, ws.ctx());
      expect(out.thrown, command).toBeInstanceOf(SsrfBlockedError);
      expect(out.text).toBe('Command blocked by safety guard (internal/private URL detected)');
    }
  });
});

describe('exec guard path checks (the only boundary without a sandbox)', () => {
  it('refuses paths outside the workspace with a typed workspace violation', async () => {
    for (const command of ['cat /etc/passwd', 'cat ../outside/secret.txt', `cat ${ws.outside}/secret.txt`, 'ls ~', 'cat < /etc/shadow', 'X=/etc/hosts cat $X']) {
      const out = await call(execTool('none'), { command }, ws.ctx());
      expect(out.thrown, command).toBeInstanceOf(WorkspaceViolationError);
      expect(out.text).toMatch(/path outside working dir|path traversal detected/);
      expect(out.text).toContain('hard policy boundary');
    }
  });

  it('allows benign devices and paths inside the workspace', async () => {
    const out = await call(execTool('none'), { command: `echo hi > ${ws.root}/f.txt 2>/dev/null; cat ./f.txt` }, ws.ctx());
    expect(out.text).toBe('hi\n\n\nExit code: 0');
  });

  it('inside the sandbox the path checks are off by default (the mounts are the boundary) and can be turned on', async () => {
    const boxed = await call(execTool('required'), { command: 'ls /usr/bin/env' }, ws.ctx());
    expect(boxed.text).toBe('/usr/bin/env\n\n\nExit code: 0');
    const guarded = await call(execTool('required', { pathGuard: true }), { command: 'ls /usr/bin/env' }, ws.ctx());
    expect(guarded.thrown).toBeInstanceOf(WorkspaceViolationError);
  });
});

describe('exec without a sandbox kills host processes by group and session', () => {
  it('kills the whole process group on timeout, grandchildren included', async () => {
    const pidFile = join(ws.root, 'pids');
    const command = `sleep 30 & echo $! > ${pidFile}; sh -c 'echo $$ >> ${pidFile}; sleep 30'`;
    const out = await call(execTool('none'), { command, timeout: 1 }, ws.ctx());
    expect(out.isError).toBe(true);
    expect(out.text).toBe('Error: Command timed out after 1 seconds');
    const pids = (await readFile(pidFile, 'utf8')).trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await eventually(() => isGone(pid))).toBe(true);
  });

  it('kills background jobs left behind when the command returns, unless keepBackgroundJobs', async () => {
    const pidFile = join(ws.root, 'bg');
    const out = await call(execTool('none'), { command: `(sleep 30 > /dev/null 2>&1 &  echo $! > ${pidFile})` }, ws.ctx());
    expect(out.text).toContain('Exit code: 0');
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    expect(await eventually(() => isGone(pid))).toBe(true);

    const kept = await call(execTool('none', { keepBackgroundJobs: true }), { command: `(sleep 30 > /dev/null 2>&1 &  echo $! > ${pidFile})` }, ws.ctx());
    expect(kept.text).toContain('Exit code: 0');
    const keptPid = Number((await readFile(pidFile, 'utf8')).trim());
    expect(await isGone(keptPid)).toBe(false);
    process.kill(keptPid, 'SIGKILL');
  });

  it('an aborted call kills the group and reports the interruption', async () => {
    const controller = new AbortController();
    const pidFile = join(ws.root, 'ab');
    const pending = call(execTool('none'), { command: `sleep 30 & echo $! > ${pidFile}; wait` }, ws.ctx({ signal: controller.signal }));
    await eventually(async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim() !== '');
    controller.abort();
    const out = await pending;
    expect(out.text).toBe('Error: Command interrupted');
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    expect(await eventually(() => isGone(pid))).toBe(true);
  });
});

describe('exec sandbox selection', () => {
  it("'auto' falls back to the guard when the probe fails, and warns once per session in the result", async () => {
    let probes = 0;
    const tool = createExecTool({ sandboxProbe: () => { probes++; return { ok: false, reason: 'bwrap not found' }; } });
    const first = await call(tool, { command: 'echo hi' }, ws.ctx({ sessionKey: 'a' }));
    expect(first.text).toBe('hi\n\n\nExit code: 0\n\n[sandbox] exec runs without a sandbox (bwrap not found); only the command guard stands between the model and this machine. Install bubblewrap to box commands.');
    const second = await call(tool, { command: 'echo hi' }, ws.ctx({ sessionKey: 'a' }));
    expect(second.text).toBe('hi\n\n\nExit code: 0');
    const other = await call(tool, { command: 'echo hi' }, ws.ctx({ sessionKey: 'b' }));
    expect(other.text).toContain('[sandbox]');
    // The guard is back in charge: paths outside are refused.
    const outside = await call(tool, { command: 'cat /etc/hostname' }, ws.ctx({ sessionKey: 'a' }));
    expect(outside.thrown).toBeInstanceOf(WorkspaceViolationError);
    expect(probes).toBe(1);
  });

  it('an onWarning listener receives the warning instead of the model', async () => {
    const seen: string[] = [];
    const tool = createExecTool({ sandbox: 'none', onWarning: (m, s) => { seen.push(`${s}: ${m}`); } });
    const out = await call(tool, { command: 'echo hi' }, ws.ctx({ sessionKey: 's' }));
    await call(tool, { command: 'echo hi' }, ws.ctx({ sessionKey: 's' }));
    expect(out.text).toBe('hi\n\n\nExit code: 0');
    expect(seen).toEqual(['s: exec runs without a sandbox (sandbox: none): only the command guard stands between the model and this machine.']);
  });

  it("'required' without a working sandbox refuses to run with a typed error", async () => {
    const tool = createExecTool({ sandbox: 'required', sandboxProbe: () => ({ ok: false, reason: 'user namespaces disabled' }) });
    const out = await call(tool, { command: 'touch ran' }, ws.ctx());
    expect(out.thrown).toMatchObject({ code: 'SANDBOX_UNAVAILABLE', reason: 'user namespaces disabled' });
    expect(out.text).toContain('apt-get install bubblewrap');
    expect((await readFile(join(ws.root, 'ran')).catch(() => null))).toBeNull();
  });

  it("'auto' with a working probe uses bubblewrap: the host's other directories are invisible", async () => {
    const tool = createExecTool({ sandboxProbe: () => ({ ok: true }) });
    const out = await call(tool, { command: `ls ${ws.outside} 2>&1; echo done` }, ws.ctx());
    expect(out.text).toContain('No such file or directory');
    expect(out.text).not.toContain('secret.txt');
  });

  it('widening the sandbox needs restrictToWorkspace: false', async () => {
    expect(() => createExecTool({ sandboxPaths: { readOnly: [ws.outside] } })).toThrow(/restrictToWorkspace: false/);
    const tool = execTool('required', { restrictToWorkspace: false, sandboxPaths: { readOnly: [ws.outside] } });
    const out = await call(tool, { command: `cat ${ws.outside}/secret.txt; touch ${ws.outside}/x 2>&1; true` }, ws.ctx());
    expect(out.text).toContain('TOP SECRET');
    expect(out.text).toContain('Read-only file system');
  });
});

describe('execSandboxStatus', () => {
  it('says which sandbox an exec tool would use, and why not', () => {
    expect(execSandboxStatus({ sandboxProbe: () => ({ ok: true }) })).toEqual({ mode: 'auto', active: 'bubblewrap' });
    expect(execSandboxStatus({ sandboxProbe: () => ({ ok: false, reason: 'no bwrap' }) })).toMatchObject({ mode: 'auto', active: 'none', warning: expect.stringContaining('no bwrap') });
    expect(execSandboxStatus({ sandbox: 'none' })).toMatchObject({ mode: 'none', active: 'none' });
    expect(execSandboxStatus({ sandbox: 'required', sandboxProbe: () => ({ ok: false, reason: 'no bwrap' }) })).toMatchObject({ mode: 'required', active: 'unavailable', warning: expect.stringContaining('apt-get install bubblewrap') });
  });
});
