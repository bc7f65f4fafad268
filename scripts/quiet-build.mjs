#!/usr/bin/env node
// Builds one workspace package and its dependencies with turbo, showing nothing but one line on
// stderr when it works, and the build's own output when it fails — so `pnpm demo` and
// `pnpm nanobot …` print their program's output, not ~75 lines of build log.
// Usage: node scripts/quiet-build.mjs <package-name>
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const pkg = process.argv[2];
if (!pkg) {
  process.stderr.write('usage: node scripts/quiet-build.mjs <package-name>\n');
  process.exit(2);
}
const started = Date.now();
const result = spawnSync('turbo', ['run', 'build', '--concurrency=2', `--filter=${pkg}...`, '--output-logs=errors-only'], {
  cwd: root,
  encoding: 'utf8',
  env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` },
});
if (result.status !== 0) {
  process.stderr.write(result.stdout ?? '');
  process.stderr.write(result.stderr ?? '');
  if (result.error) process.stderr.write(`${result.error.message}\n`);
  process.exit(result.status ?? 1);
}
const cached = /Cached:\s+(\d+) cached, (\d+) total/.exec(result.stdout ?? '');
const what = cached ? ` (${cached[1]} of ${cached[2]} packages cached)` : '';
process.stderr.write(`built ${pkg}${what} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
