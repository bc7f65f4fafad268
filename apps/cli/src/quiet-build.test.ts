// The root scripts `pnpm demo`, `pnpm nanobot` and `pnpm web` build through
// scripts/quiet-build.mjs, so the program's output is not buried under the build log: one
// progress line on a terminal (erased when done), one line on a pipe, the build's own output when
// it fails; then the program runs, and Ctrl-C ends it quietly with its own status.
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PtyProcess, renderTerminal, requireScript } from './test-support/pty.js';
import { cleanEnv, tempDir } from './test-support/spawn-cli.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const SCRIPT = resolve(ROOT, 'scripts', 'quiet-build.mjs');
const PKG = '@nanobot-internal/test-support';

function build(pkg: string) {
  return spawnSync(process.execPath, [SCRIPT, pkg], { cwd: ROOT, encoding: 'utf8' });
}

/** A program that says it is ready, and on Ctrl-C (SIGINT) says goodbye and exits 0 — like the web demo. */
function program(): string {
  const file = join(tempDir('prog'), 'program.mjs');
  writeFileSync(file, "process.on('SIGINT', () => setTimeout(() => process.exit(0), 50));\nconsole.log(`ready ${process.argv.slice(2).join(' ')}`);\nsetInterval(() => {}, 1000);\n");
  return file;
}

beforeAll(() => requireScript());

describe('the quiet build of the root scripts', () => {
  it('prints one line on stderr and nothing on stdout when the build works (not a terminal)', () => {
    const result = build(PKG);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^built @nanobot-internal\/test-support .*in [\d.]+ s\n$/);
  }, 120_000);

  it('a root script a test runs sees the build hashes of the test command (vitest\'s NODE_ENV=test, VITEST… change nothing)', () => {
    // The test command builds with the CI's environment; a test's child inherits what vitest adds
    // (NODE_ENV=test first). Were any of it hashed, the first `pnpm nanobot` of a test would rebuild
    // every package under the suites that load dist/ (and tsdown empties dist/ first).
    const hashes = (env: NodeJS.ProcessEnv) => {
      const res = spawnSync(join(ROOT, 'node_modules', '.bin', 'turbo'), ['run', 'build', '--filter=@nanobot/cli...', '--dry=json'], { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      expect(res.status, res.stderr).toBe(0);
      const tasks = (JSON.parse(res.stdout.slice(res.stdout.indexOf('{'))) as { tasks: { taskId: string; hash: string }[] }).tasks;
      return Object.fromEntries(tasks.map((t) => [t.taskId, t.hash]));
    };
    expect(process.env.NODE_ENV).toBe('test');
    const plain = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NODE_ENV|VITEST.*|TEST|CI)$/.test(k)));
    const inTest = hashes(process.env);
    expect(Object.keys(inTest)).toContain('@nanobot/providers#build');
    expect(hashes(plain)).toEqual(inTest);
    expect(hashes({ ...plain, NODE_ENV: 'production', CI: 'true' })).toEqual(inTest);
  }, 120_000);

  it('shows the build output when it fails, with its status', () => {
    const result = build('@nanobot/no-such-package');
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('No package found');
  }, 120_000);

  it('pnpm demo, pnpm nanobot and pnpm web use it, exec\'d (no shell between pnpm and the program)', () => {
    const scripts = (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.demo).toBe('exec node scripts/quiet-build.mjs @nanobot/cli apps/cli/dist/bin.js run --demo');
    expect(scripts.nanobot).toBe('exec node scripts/quiet-build.mjs @nanobot/cli apps/cli/dist/bin.js');
    expect(scripts.web).toBe('exec node scripts/quiet-build.mjs @nanobot/web apps/web/dist/server/main.js');
  });

  it('on a terminal: one progress line while it builds, erased, then only the program (with its arguments)', async () => {
    const pty = new PtyProcess(`${JSON.stringify(process.execPath)} ${JSON.stringify(SCRIPT)} ${PKG} ${JSON.stringify(program())} one two`, { cols: 80, env: cleanEnv(), cwd: ROOT });
    await pty.waitFor(/ready one two/);
    expect(pty.output).toMatch(/building @nanobot-internal\/test-support · /);
    const screen = (await renderTerminal(pty.output, 80)).map((l) => l.text).filter((l) => l.trim() !== '');
    expect(screen).toEqual(['ready one two']);
    pty.type('\u0003');
    expect(await pty.exited).toBe(0);
  }, 120_000);

  it('through pnpm, Ctrl-C ends the program quietly with status 0 (no ELIFECYCLE)', async () => {
    const dir = tempDir('pkg');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'quiet-build-ctrl-c', private: true, scripts: { start: `exec node ${JSON.stringify(SCRIPT)} ${PKG} ${JSON.stringify(program())}` } }));
    const pnpm = join(ROOT, 'node_modules', '.bin', 'pnpm');
    chmodSync(pnpm, 0o755);
    const pty = new PtyProcess(`${JSON.stringify(pnpm)} --silent start`, { cols: 80, env: cleanEnv({ npm_config_update_notifier: 'false' }), cwd: dir });
    await pty.waitFor(/ready/);
    pty.type('\u0003');
    expect(await pty.exited).toBe(0);
    expect(pty.output).not.toMatch(/ELIFECYCLE|Command failed/);
  }, 120_000);
});
