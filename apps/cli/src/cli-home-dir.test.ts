import { chmodSync, existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionFileName } from '@nanobot/session';
import { cleanEnv, runCli, tempDir } from './test-support/spawn-cli.js';

describe('running nanobot from the home directory', () => {
  it('works: the tools get ~/.nanobot/workspace and the sessions stay out of their reach', async () => {
    const home = realpathSync(tempDir('home'));
    const env = cleanEnv({ HOME: home });
    const run = await runCli(['run', '-m', 'hello', '-s', 'from-home'], { env, cwd: home });
    expect(run.stderr).not.toMatch(/Refusing/);
    expect(run.code).toBe(0);
    const workspace = join(home, '.nanobot', 'workspace');
    expect(run.stderr).toContain(`workspace: ${workspace} (the current directory ${home} holds nanobot's own sessions`);
    expect(existsSync(workspace)).toBe(true);
    // The session was saved under ~/.nanobot/sessions, which is not inside the workspace.
    const sessionsRoot = join(home, '.nanobot', 'sessions');
    const [dir] = readdirSync(sessionsRoot);
    expect(readdirSync(join(sessionsRoot, dir))).toContain(sessionFileName('from-home'));

    const chat = await runCli(['chat', '-s', 'from-home'], { env, cwd: home, input: 'again\n' });
    expect(chat.code).toBe(0);
    expect(chat.stderr).toMatch(/resumed session from-home \(2 messages\)/);

    const inspect = await runCli(['inspect'], { env, cwd: home });
    expect(inspect.code).toBe(0);
    expect(inspect.stdout).toMatch(/session {2}from-home/);
  });

  it('with -w naming the home directory, the refusal says how to fix it', async () => {
    const home = realpathSync(tempDir('home'));
    const result = await runCli(['run', '-m', 'hello', '-w', home], { env: cleanEnv({ HOME: home }), cwd: home });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Refusing to store sessions inside the workspace .*; pass --sessions-dir <a directory outside the workspace>, or run without -w/);
  });
});

/** A hint as one line: its command may be laid out below it, broken with ` \` continuations. */
function joined(text: string): string {
  return text.replace(/:\n {2}/g, ': ').replace(/ \\\n\s+/g, ' ');
}

describe('hints match how the CLI was started', () => {
  it('through the root `pnpm nanobot` script the hint says pnpm nanobot, and the tools work in the caller\'s directory', async () => {
    const repo = realpathSync(tempDir('repo'));
    const here = join(repo, 'sub');
    mkdirSync(here);
    // As pnpm runs the root script for a user with a pnpm of their own on PATH.
    const bin = tempDir('bin');
    writeFileSync(join(bin, 'pnpm'), '#!/bin/sh\n');
    chmodSync(join(bin, 'pnpm'), 0o755);
    const env = cleanEnv({
      npm_lifecycle_event: 'nanobot',
      npm_package_json: join(repo, 'package.json'),
      INIT_CWD: here,
      npm_config_user_agent: 'pnpm/10.34.9 npm/? node/v20.20.2 linux x64',
      npm_execpath: '/usr/local/lib/node_modules/pnpm/bin/pnpm.cjs',
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    });
    const result = await runCli(['run', '-m', 'hello', '--sessions-dir', tempDir('s')], { env, cwd: repo });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`workspace: ${here}\n`);
    expect(joined(result.stderr)).toMatch(/continue with: pnpm nanobot chat --session run-/);
    // From outside the repository (pnpm -C <repo> nanobot) the hint keeps the -C.
    const outside = await runCli(['run', '-m', 'hello', '--sessions-dir', tempDir('s')], { env: { ...env, INIT_CWD: realpathSync(tempDir('out')) }, cwd: repo });
    expect(joined(outside.stderr)).toContain(`continue with: pnpm -C ${repo} nanobot chat --session run-`);
  });

  it('run as node <path>/bin.js the hint repeats that command', async () => {
    const result = await runCli(['run', '-m', 'hello', '-w', tempDir('ws'), '--sessions-dir', tempDir('s')], { env: cleanEnv() });
    expect(result.code).toBe(0);
    expect(joined(result.stderr)).toMatch(/continue with: node \S*dist\/bin\.js chat --session run-\S+ -w \S+ --sessions-dir \S+/);
  });
});
