// Every command the CLI prints for the user to type next (resume, continue, start one, the demo,
// --help) is run here exactly as printed — pasted into bash, in the same directory and
// environment as the command that printed it — for each way of starting the CLI: `node <path>`,
// an installed `nanobot` on PATH, the repository's root script through a pnpm of the user's own
// (from inside the repository and with -C from outside) and through `npx -y pnpm@<version>`.
// A resume hint must really resume: the session it opens holds what was said before.
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseSessionFile } from '@nanobot/session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenAiServer } from './test-support/fake-openai-server.js';
import { CLI_BIN, cleanEnv, tempDir } from './test-support/spawn-cli.js';
import { startToolFollowingServer } from './test-support/tool-following-server.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const PNPM_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string }).packageManager.replace(/^pnpm@/, '');
let model: FakeOpenAiServer;

beforeAll(async () => {
  model = await startToolFollowingServer();
});
afterAll(async () => {
  await model?.close();
});

interface Shell {
  cwd: string;
  env: Record<string, string>;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command line in bash, as a user's shell would, with `input` on stdin. */
function sh(line: string, shell: Shell, input = ''): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-c', line], { cwd: shell.cwd, env: shell.env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/**
 * The commands a text offers to be typed next, as printed: after `… with:` / `… run:` (on the
 * same line, or on the indented lines below it, `\` continuations included), inside `(start one
 * with: …)` and `(see …)`, and between backticks after "run".
 */
function printedHints(text: string): string[] {
  const hints: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const lead = /(?:resume with|continue with|and run):\s*(.*)$/.exec(line);
    if (!lead) return;
    if (lead[1].trim() !== '') {
      hints.push(lead[1].trim());
      return;
    }
    const body: string[] = [];
    for (let j = i + 1; j < lines.length && /^ {2}\S/.test(lines[j].replace(/^ {4}/, '  ')); j++) {
      body.push(lines[j]);
      if (!lines[j].endsWith(' \\')) break;
    }
    hints.push(body.join('\n').trim());
  });
  for (const m of text.matchAll(/\((?:start one with:|see) ([^)]+)\)/g)) hints.push(m[1]);
  for (const m of text.matchAll(/run `([^`]+)`/g)) hints.push(m[1]);
  return hints;
}

function sessionFile(dir: string): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
  expect(files).toHaveLength(1);
  return join(dir, files[0]);
}

function userTurns(file: string): string[] {
  return parseSessionFile(readFileSync(file, 'utf8')).messages.filter((m) => m.role === 'user').map((m) => String(m.content).split('\n')[0]);
}

/**
 * Starts `start` (a command line) to run one turn, then runs every hint it printed: each resume
 * hint must open the same session and add a turn to it.
 */
async function runAndResume(start: string, shell: Shell, expectedPrefix: string): Promise<void> {
  const workspace = tempDir('ws');
  writeFileSync(join(workspace, 'plan.md'), '# Plan\nship it\n');
  const sessions = tempDir('sessions');
  const first = await sh(`${start} run -m 'list files' -w ${workspace} --sessions-dir ${sessions}`, shell);
  expect(first.code, first.stderr).toBe(0);
  const hints = printedHints(first.stderr);
  expect(hints).toHaveLength(1);
  expect(hints[0].startsWith(`${expectedPrefix} chat --session run-`), hints[0]).toBe(true);
  const file = sessionFile(sessions);
  expect(userTurns(file)).toEqual(['list files']);
  // Pasted as printed: the chat resumes that session, and prints hints of its own.
  const resumed = await sh(hints[0], shell, 'read plan.md\n');
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(/resumed session run-\S+ \(\d+ messages\) — last question: "list files"/);
  expect(resumed.stdout).toContain('read_file returned:');
  expect(userTurns(file)).toEqual(['list files', 'read plan.md']);
  const again = printedHints(resumed.stderr);
  expect(again.length).toBeGreaterThan(0);
  for (const hint of again) {
    const ran = await sh(hint, shell, 'say hi\n');
    expect(ran.code, `${hint}\n${ran.stderr}`).toBe(0);
  }
  expect(userTurns(file)).toEqual(['list files', 'read plan.md', ...again.map(() => 'say hi')]);
  expect(readdirSync(sessions).filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
}

/** The environment of a user's shell: the fake model configured, nothing else of ours. */
function userShell(cwd: string, extraPath?: string): Shell {
  const env = cleanEnv({ OPENAI_BASE_URL: model.url, npm_config_offline: 'true', npm_config_update_notifier: 'false' });
  // A shell's PATH, without what a package manager put in front for this test run.
  env.PATH = [extraPath, ...(env.PATH ?? '').split(':').filter((d) => !/node_modules|_npx|node-gyp-bin/.test(d))].filter(Boolean).join(':');
  for (const k of Object.keys(env)) if (/^(npm_|INIT_CWD|PNPM_)/.test(k) && !/^npm_config_(offline|update_notifier)$/.test(k)) delete env[k];
  return { cwd, env };
}

describe('printed hints run as printed', () => {
  it('started as node <path>: run → resume → chat hints, the offline demo hint, --help and "start one with"', async () => {
    const shell = userShell(ROOT);
    const start = `node ${relative(ROOT, CLI_BIN)}`;
    await runAndResume(start, shell, start);

    // Offline, the chat answers in words and names the demo as this process was started.
    const offline = { ...shell, env: { ...shell.env, OPENAI_BASE_URL: '' } };
    const chat = await sh(`${start} chat -w ${tempDir('ws')} --sessions-dir ${tempDir('s')}`, offline, 'hello\n');
    expect(chat.code).toBe(0);
    const demo = printedHints(chat.stdout);
    expect(demo).toEqual([`${start} run --demo`]);
    const ran = await sh(demo[0], offline);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain('the note the demo wrote');
    // The demo's own hint: a chat on the user's files.
    const next = printedHints(ran.stderr);
    expect(next).toEqual([`${start} chat`]);
    const chatted = await sh(`${next[0]} -w ${tempDir('ws')} --sessions-dir ${tempDir('s')}`, shell, '/exit\n');
    expect(chatted.code, chatted.stderr).toBe(0);

    // A refusal points at --help, and inspect without sessions at a chat in the same place.
    const bad = await sh(`${start} chat --bogus`, shell);
    expect(bad.code).toBe(2);
    const help = printedHints(bad.stderr);
    expect(help).toEqual([`${start} --help`]);
    expect((await sh(help[0], shell)).stdout).toMatch(/^nanobot — /);
    const empty = tempDir('empty');
    const inspect = await sh(`${start} inspect -w ${tempDir('ws')} --sessions-dir ${empty}`, shell);
    expect(inspect.code).toBe(2);
    const startOne = printedHints(inspect.stderr);
    expect(startOne).toHaveLength(1);
    expect((await sh(startOne[0], shell, 'hello\n')).code).toBe(0);
    expect((await sh(`${start} inspect -w ${tempDir('ws')} --sessions-dir ${empty}`, shell)).code).toBe(0);
  }, 300_000);

  it('an installed nanobot on PATH: the hints say nanobot', async () => {
    const bin = tempDir('bin');
    chmodSync(CLI_BIN, 0o755);
    symlinkSync(CLI_BIN, join(bin, 'nanobot'));
    await runAndResume('nanobot', userShell(tempDir('home'), bin), 'nanobot');
  }, 300_000);

  it('the root script with a pnpm on PATH: pnpm nanobot inside the repository, pnpm -C <repo> nanobot outside it', async () => {
    const bin = tempDir('bin');
    // A pnpm of the user's own (the repository's pinned one, installed on PATH).
    writeFileSync(join(bin, 'pnpm'), `#!/bin/sh\nexec ${JSON.stringify(join(ROOT, 'node_modules', '.bin', 'pnpm'))} "$@"\n`);
    chmodSync(join(bin, 'pnpm'), 0o755);
    const inside = join(ROOT, 'apps');
    await runAndResume('pnpm nanobot', userShell(inside, bin), 'pnpm nanobot');
    const outside = tempDir('elsewhere');
    await runAndResume(`pnpm -C ${ROOT} nanobot`, userShell(outside, bin), `pnpm -C ${ROOT} nanobot`);
  }, 600_000);

  it('the root script through npx (the README): npx -y pnpm@<version> nanobot', async () => {
    const shell = userShell(ROOT);
    const start = `npx -y pnpm@${PNPM_VERSION} nanobot`;
    await runAndResume(start, shell, start);
  }, 600_000);
});
