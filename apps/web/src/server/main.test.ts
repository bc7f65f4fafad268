// The built entry point (`node apps/web/dist/server/main.js`) run as a user runs it: bad input is
// one line on stderr and exit 2 with nothing created or started; good input serves the demo.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const MAIN = resolve(import.meta.dirname, '..', '..', 'dist', 'server', 'main.js');
if (!existsSync(MAIN)) throw new Error(`build the app first (tsc + vite build): ${MAIN} is missing`);

function temp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `nanobot-web-main-${prefix}-`));
}

/** The machine's environment without provider keys or NANOBOT_* settings, and a temp HOME. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(OPENAI_|ANTHROPIC_|NANOBOT_|AZURE_OPENAI_)|_API_KEY$|^HF_TOKEN$|^AWS_BEARER_TOKEN_BEDROCK$/.test(k)) env[k] = v;
  return { ...env, HOME: temp('home'), ...extra };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runMain(args: string[], env = cleanEnv()): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // A refused start exits by itself; one that started would hang: stop it so the test fails, not times out.
    child.stdout.on('data', () => {
      if (stdout.includes('workspace: ')) child.kill('SIGTERM');
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

function expectRefused(run: Run, message: RegExp): void {
  expect(run.stdout).toBe('');
  expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(run.stderr).toMatch(/^nanobot-web: /);
  expect(run.stderr).toMatch(message);
  expect(run.code).toBe(2);
}

describe('node dist/server/main.js', () => {
  it('refuses an unknown flag and a bad number in one line', async () => {
    expectRefused(await runMain(['--bogus']), /Unknown option '--bogus'.*see --help/);
    expectRefused(await runMain(['--port', 'abc']), /--port must be a non-negative integer, got "abc"/);
    expectRefused(await runMain(['--port', '0', '--context-window=-5']), /--context-window must be a non-negative integer, got "-5"/);
    // node:util reports this one over several lines: still one line here.
    expectRefused(await runMain(['--port', '0', '--context-window', '-5']), /--context-window.*ambiguous/);
    expectRefused(await runMain(['extra']), /Unexpected argument 'extra'/);
  });

  it('refuses a workspace that does not exist, and creates nothing', async () => {
    const missing = join(temp('parent'), 'no', 'such');
    const sessions = join(temp('s'), 'store');
    expectRefused(await runMain(['--port', '0', '--workspace', missing, '--sessions', sessions]), new RegExp(`workspace ${missing} does not exist`));
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(sessions)).toBe(false);
  });

  it('refuses a model configuration the providers refuse, naming the field', async () => {
    const unknown = await runMain(['--port', '0', '--workspace', temp('ws'), '--sessions', join(temp('s'), 'x'), '--provider', 'nope'], cleanEnv({ OPENAI_API_KEY: 'sk-test' }));
    expectRefused(unknown, /--provider: Unknown provider "nope"/);
    const keyless = await runMain(['--port', '0', '--workspace', temp('ws'), '--sessions', join(temp('s'), 'x')], cleanEnv({ NANOBOT_PROVIDER: 'deepseek' }));
    expectRefused(keyless, /DEEPSEEK_API_KEY/);
  });

  it('refuses a busy port', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const { port } = busy.address() as AddressInfo;
    try {
      expectRefused(await runMain(['--port', String(port), '--workspace', temp('ws'), '--sessions', join(temp('s'), 'x')]), new RegExp(`port ${port} on 127.0.0.1 is already in use`));
    } finally {
      await new Promise<void>((r) => busy.close(() => r()));
    }
  });

  it('starts on 127.0.0.1 with good input (the offline model says so) and exits 0 on SIGTERM', async () => {
    const run = await runMain(['--port', '0', '--workspace', temp('ws'), '--sessions', join(temp('s'), 'x'), '--offline']);
    expect(run.stdout).toMatch(/^nanobot web demo: http:\/\/127\.0\.0\.1:\d+\nmodel: the offline scripted model/);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});
