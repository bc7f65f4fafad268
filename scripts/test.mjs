#!/usr/bin/env node
// `pnpm test` / `pnpm test:exhaustive`: builds what the tests need and runs every package's vitest
// suite through turbo with --continue (a failing package never stops the others), then lists
// every failing test and ends with `tests: N passed, N failed`.
// Usage: node scripts/test.mjs [--exhaustive] [extra turbo args, e.g. --filter=@nanobot/governor]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const exhaustive = args.includes('--exhaustive');
const turboArgs = args.filter((a) => a !== '--exhaustive');
const env = { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` };
if (exhaustive) env.NANOBOT_EXHAUSTIVE = '1';

const run = (cmd, argv) => spawnSync(cmd, argv, { cwd: root, env, stdio: 'inherit' }).status ?? 1;
run(process.execPath, ['scripts/sum-test-reports.mjs', '--clean']);
const turbo = run('turbo', ['run', 'test', '--concurrency=2', '--continue', ...turboArgs]);
const sum = turboArgs.some((a) => a.startsWith('--filter')) ? 0 : run(process.execPath, ['scripts/sum-test-reports.mjs']);
process.exit(turbo !== 0 || sum !== 0 ? 1 : 0);
