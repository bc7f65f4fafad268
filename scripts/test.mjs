#!/usr/bin/env node
// `pnpm test` / `pnpm test:exhaustive`: brings what the suites need from the machine (Debian's
// Chromium and bubblewrap, installed with apt-get when missing: scripts/provision-test-deps.mjs),
// builds what the tests need and runs every package's vitest suite through turbo with --continue
// (a failing package never stops the others), then lists every failing test and ends with
// `tests: N passed, N failed`.
// Usage: node scripts/test.mjs [--exhaustive] [extra turbo args, e.g. --filter=@nanobot/governor]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { provisionTestDeps, ProvisionError } from './provision-test-deps.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const exhaustive = args.includes('--exhaustive');
const turboArgs = args.filter((a) => a !== '--exhaustive');
const env = { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` };
if (exhaustive) env.NANOBOT_EXHAUSTIVE = '1';
const filtered = turboArgs.some((a) => a.startsWith('--filter'));

/** The packages whose `test` task this run starts (turbo's dry run resolves the filters). */
function packagesUnderTest() {
  const res = spawnSync('turbo', ['run', 'test', '--dry=json', ...turboArgs], { cwd: root, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (res.status !== 0) return undefined; // turbo reports the bad arguments itself below
  return JSON.parse(res.stdout).tasks.filter((t) => t.task === 'test').map((t) => t.package);
}

try {
  provisionTestDeps({ packages: filtered ? packagesUnderTest() : undefined });
} catch (error) {
  if (!(error instanceof ProvisionError)) throw error;
  console.error(`\n${error.message}\n`);
  console.log('tests: 0 passed, 1 failed');
  process.exit(1);
}

const run = (cmd, argv) => spawnSync(cmd, argv, { cwd: root, env, stdio: 'inherit' }).status ?? 1;
run(process.execPath, ['scripts/sum-test-reports.mjs', '--clean']);
const turbo = run('turbo', ['run', 'test', '--concurrency=2', '--continue', ...turboArgs]);
const sum = filtered ? 0 : run(process.execPath, ['scripts/sum-test-reports.mjs']);
process.exit(turbo !== 0 || sum !== 0 ? 1 : 0);
