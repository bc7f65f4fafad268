import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecTool } from './exec-tool.js';
import { SsrfBlockedError } from './ssrf-blocked-error.js';
import { call } from './test-support/run-tool.js';
import { createTempWorkspace, type TempWorkspace } from './test-support/temp-workspace.js';
import { WorkspaceViolationError } from './workspace-violation-error.js';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace();
});
afterEach(() => ws.dispose());

/** Whether a pid is gone; a zombie (exited, not yet reaped by init) counts as gone. */
async function isGone(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Waits (bounded) for a condition the kernel settles asynchronously; not a timing assertion. */
async function eventually(check: () => Promise<boolean>, attempts = 100): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('exec output', () => {
  it('returns stdout, STDERR and the exit code in the reference layout', async () => {
    const out = await call(createExecTool(), { command: 'echo out; echo err 1>&2; exit 3' }, ws.ctx());
    expect(out.isError).toBe(false);
    expect(out.text).toBe('out\n\nSTDERR:\nerr\n\n\nExit code: 3');
  });

  it('always ends with the exit code, even with no output', async () => {
    const out = await call(createExecTool(), { command: 'true' }, ws.ctx());
    expect(out.text).toBe('\nExit code: 0');
  });

  it('a command killed by a signal reports a negative exit code, as Python does', async () => {
    const out = await call(createExecTool(), { command: 'kill -TERM $$' }, ws.ctx());
    expect(out.text).toBe('\nExit code: -15');
  });

  it('runs in the workspace (or working_dir inside it)', async () => {
    await ws.write('sub/marker.txt', 'm');
    expect((await call(createExecTool(), { command: 'pwd' }, ws.ctx())).text).toContain(ws.root);
    expect((await call(createExecTool(), { command: 'ls', working_dir: 'sub' }, ws.ctx())).text).toContain('marker.txt');
  });

  it('cuts long output in the middle with the truncation marker', async () => {
    const out = await call(createExecTool(), { command: 'head -c 30000 /dev/zero | tr "\\0" a', max_output_chars: 1000 }, ws.ctx());
    expect(out.text).toContain('chars truncated');
    expect(out.text.startsWith('a'.repeat(500))).toBe(true);
    expect(out.text.endsWith('Exit code: 0')).toBe(true);
    // 30000 a's + "\n\nExit code: 0" (14 chars) - 1000 budget.
    expect(out.text).toContain('... (29,014 chars truncated) ...');
  });

  it('keeps memory bounded for huge output and still counts what it dropped', async () => {
    const out = await call(createExecTool(), { command: 'head -c 3000000 /dev/zero | tr "\\0" b' }, ws.ctx());
    expect(out.text.length).toBeLessThan(10_100);
    expect(out.text).toContain('(2,990,014 chars truncated)');
  });

  it('does not inherit secrets from the environment', async () => {
    process.env.NANOBOT_TEST_SECRET = 'hunter2';
    try {
      const out = await call(createExecTool(), { command: 'echo "[$NANOBOT_TEST_SECRET]"' }, ws.ctx());
      expect(out.text).toContain('[]');
      const allowed = await call(createExecTool({ allowedEnvKeys: ['PATH', 'NANOBOT_TEST_SECRET'] }), { command: 'echo "[$NANOBOT_TEST_SECRET]"' }, ws.ctx());
      expect(allowed.text).toContain('[hunter2]');
    } finally {
      delete process.env.NANOBOT_TEST_SECRET;
    }
  });
});

describe('exec cannot outlive its timeout', () => {
  it('kills the whole process group, grandchildren included', async () => {
    const pidFile = join(ws.root, 'pids');
    // The shell starts a background grandchild and a foreground sleep, recording both pids.
    const command = `sleep 30 & echo $! > ${pidFile}; sh -c 'echo $$ >> ${pidFile}; sleep 30'`;
    const out = await call(createExecTool(), { command, timeout: 1 }, ws.ctx());
    expect(out.isError).toBe(true);
    expect(out.text).toBe('Error: Command timed out after 1 seconds');
    const pids = (await readFile(pidFile, 'utf8')).trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await eventually(() => isGone(pid))).toBe(true);
  });

  it('kills background jobs left behind when the command returns', async () => {
    const pidFile = join(ws.root, 'bg');
    const out = await call(createExecTool(), { command: `(sleep 30 > /dev/null 2>&1 &  echo $! > ${pidFile})` }, ws.ctx());
    expect(out.text).toContain('Exit code: 0');
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    expect(await eventually(() => isGone(pid))).toBe(true);
  });

  it('an aborted call kills the group and reports the interruption', async () => {
    const controller = new AbortController();
    const pidFile = join(ws.root, 'ab');
    const pending = call(createExecTool(), { command: `sleep 30 & echo $! > ${pidFile}; wait` }, ws.ctx({ signal: controller.signal }));
    await eventually(async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim() !== '');
    controller.abort();
    const out = await pending;
    expect(out.text).toBe('Error: Command interrupted');
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    expect(await eventually(() => isGone(pid))).toBe(true);
  });

  it('caps the per-call timeout at 600 s in the schema and in the call', () => {
    const schema = createExecTool().jsonSchema as { properties: { timeout: { maximum: number } } };
    expect(schema.properties.timeout.maximum).toBe(600);
  });
});

describe('exec guard', () => {
  it('blocks deny-listed commands as plain errors', async () => {
    for (const command of ['rm -rf /', 'rm -fr build', 'dd if=/dev/zero of=x', 'shutdown now', ':(){ :|:& };:', 'echo x >> memory/history.jsonl']) {
      const out = await call(createExecTool({ restrictToWorkspace: false }), { command }, ws.ctx());
      expect(out.thrown).toBeUndefined();
      expect(out.text).toBe('Error: Command blocked by deny pattern filter');
    }
  });

  it('refuses paths outside the workspace with a typed workspace violation', async () => {
    for (const command of ['cat /etc/passwd', 'cat ../outside/secret.txt', `cat ${ws.outside}/secret.txt`, 'ls ~', 'cat < /etc/shadow', 'X=/etc/hosts cat $X']) {
      const out = await call(createExecTool(), { command }, ws.ctx());
      expect(out.thrown, command).toBeInstanceOf(WorkspaceViolationError);
      expect(out.text).toMatch(/path outside working dir|path traversal detected/);
      expect(out.text).toContain('hard policy boundary');
    }
  });

  it('refuses a working_dir outside the workspace', async () => {
    const out = await call(createExecTool(), { command: 'ls', working_dir: ws.outside }, ws.ctx());
    expect(out.thrown).toBeInstanceOf(WorkspaceViolationError);
    expect(out.text).toContain('working_dir is outside the configured workspace');
  });

  it('allows benign devices and paths inside the workspace', async () => {
    const out = await call(createExecTool(), { command: `echo hi > ${ws.root}/f.txt 2>/dev/null; cat ./f.txt` }, ws.ctx());
    expect(out.text).toBe('hi\n\n\nExit code: 0');
  });

  it('refuses URLs that resolve to private addresses with a typed SSRF error', async () => {
    const lookup = async () => [{ address: '10.0.0.1', family: 4 as const }];
    const tool = createExecTool({ ssrf: { lookup } });
    for (const command of ['curl http://169.254.169.254/latest/meta-data', 'curl http://internal.example/', 'wget http://[::ffff:127.0.0.1]/']) {
      const out = await call(tool, { command }, ws.ctx());
      expect(out.thrown, command).toBeInstanceOf(SsrfBlockedError);
      expect(out.text).toBe('Command blocked by safety guard (internal/private URL detected)');
    }
  });
});
