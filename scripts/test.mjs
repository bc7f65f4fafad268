#!/usr/bin/env node
// `pnpm test` / `pnpm test:exhaustive`: brings what the suites need from the machine (Debian's
// Chromium and bubblewrap, installed with apt-get when missing: scripts/provision-test-deps.mjs),
// builds what the tests need once, up front (scripts/quiet-build.mjs, which stamps what it built so
// that a root script a test runs — `pnpm nanobot` — finds it current), and runs every package's
// vitest suite through turbo with --only and --continue (a failing package never stops the
// others) in two lanes of one suite each, the longest suites first (turbo alone picks an
// arbitrary order, which can leave the CLI's suite, the longest, for last), then lists every failing test and ends with `tests: N passed, N failed`.
// No suite may rewrite a built package while the others run (the web demo's server and the CLI
// load dist/; a rebuild empties it first): every file under packages/*/dist, apps/*/dist and
// tooling/*/dist is the same (path, size, mtime) after the suites as before them, or the run fails
// with a check of its own (`.test-run/dist-unchanged.json`, summed with the suites' reports).
// Usage: node scripts/test.mjs [--exhaustive] [extra turbo args, e.g. --filter=@nanobot/governor]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
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

/** Every built file of the workspace's packages: path → `size mtime`. */
function builtFiles() {
  const files = new Map();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const st = statSync(path);
        files.set(relative(root, path), `${st.size} ${st.mtimeMs}`);
      }
    }
  };
  for (const group of ['packages', 'apps', 'tooling']) {
    if (!existsSync(join(root, group))) continue;
    for (const name of readdirSync(join(root, group))) if (existsSync(join(root, group, name, 'dist'))) walk(join(root, group, name, 'dist'));
  }
  return files;
}

/** The check that no suite rewrote dist/, as a vitest-shaped report for sum-test-reports.mjs. */
function reportDistCheck(before, after) {
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((f) => before.get(f) !== after.get(f)).sort();
  const name = 'no test suite rewrites a built package (dist/) while the suites run';
  const ok = changed.length === 0;
  if (!ok) console.error(`\n✗ ${name}: ${changed.length} file(s) changed during the suites, e.g.\n${changed.slice(0, 20).map((f) => `    ${f}`).join('\n')}\n`);
  mkdirSync(join(root, '.test-run'), { recursive: true });
  const status = ok ? 'passed' : 'failed';
  const report = { numPassedTests: ok ? 1 : 0, numFailedTests: ok ? 0 : 1, success: ok, testResults: [{ name: 'scripts/test.mjs', status, message: ok ? '' : `dist/ rewritten during the suites: ${changed.slice(0, 5).join(', ')}`, assertionResults: [{ fullName: name, status }] }] };
  writeFileSync(join(root, '.test-run', 'dist-unchanged.json'), `${JSON.stringify(report)}\n`);
  return ok;
}

const run = (cmd, argv) => spawnSync(cmd, argv, { cwd: root, env, stdio: 'inherit' }).status ?? 1;
run(process.execPath, ['scripts/sum-test-reports.mjs', '--clean']);
// Everything the suites need, built before the first suite starts (the suites' own `^build`
// dependencies are then skipped with --only): nothing builds while a suite runs.
const tested = filtered ? packagesUnderTest() : [];
const built = tested === undefined ? 0 : run(process.execPath, ['scripts/quiet-build.mjs', `--packages=${tested.join(',')}`]);
if (built !== 0) {
  console.log('tests: 0 passed, 1 failed');
  process.exit(1);
}
/**
 * Rough wall time of the longest suites, in seconds (the Node 20 step of a fresh-clone CI run on 2
 * cores); any other suite counts 20. Only the split into lanes reads it: a wrong figure costs
 * balance, never a test.
 */
const SUITE_SECONDS = {
  '@nanobot/cli': 400, '@nanobot/governor': 355, '@nanobot/tools': 165, '@nanobot/web': 135, '@nanobot/runner': 120, '@nanobot/langchain': 110,
  '@nanobot/ai-sdk': 105, '@nanobot/session': 90, '@nanobot/postgres': 90, '@nanobot/providers': 70, '@nanobot/mcp': 50, '@nanobot/schema': 50,
  '@nanobot-internal/wire-measure': 40,
};

/** The suites split into `n` lanes of about equal length (longest first, each to the shortest lane). */
function lanes(packages, n = 2) {
  const out = Array.from({ length: n }, () => ({ seconds: 0, packages: [] }));
  for (const p of [...packages].sort((a, b) => (SUITE_SECONDS[b] ?? 20) - (SUITE_SECONDS[a] ?? 20))) {
    const lane = out.reduce((best, l) => (l.seconds < best.seconds ? l : best));
    lane.packages.push(p);
    lane.seconds += SUITE_SECONDS[p] ?? 20;
  }
  return out.filter((l) => l.packages.length > 0);
}

/** Runs turbo with `argv`, output shared with this process; resolves to its exit status. */
const turboAsync = (argv) => new Promise((resolveStatus) => {
  const child = spawn('turbo', argv, { cwd: root, env, stdio: 'inherit' });
  child.on('error', () => resolveStatus(1));
  child.on('close', (status) => resolveStatus(status ?? 1));
});

/**
 * One lane's suites one after the other, in the lane's order (longest first): one turbo run per
 * suite, because a single run with several filters orders its tasks by its own rules (the CI run
 * at efbc0a5 started the longest suite last). A failing suite never stops the lane.
 */
async function runLane(packages) {
  let status = 0;
  for (const p of packages) {
    if ((await turboAsync(['run', 'test', '--only', '--continue', ...otherArgs, `--filter=${p}`])) !== 0) status = 1;
  }
  return status;
}

const before = builtFiles();
const suites = packagesUnderTest();
const otherArgs = turboArgs.filter((a) => !a.startsWith('--filter'));
// Bad arguments: one plain turbo run, which reports them.
const statuses = suites === undefined || suites.length === 0
  ? [await turboAsync(['run', 'test', '--only', '--concurrency=2', '--continue', ...turboArgs])]
  : await Promise.all(lanes(suites).map((lane) => runLane(lane.packages)));
const turbo = statuses.every((s) => s === 0) ? 0 : 1;
const distOk = reportDistCheck(before, builtFiles());
const sum = filtered ? 0 : run(process.execPath, ['scripts/sum-test-reports.mjs']);
process.exit(turbo !== 0 || sum !== 0 || !distOk ? 1 : 0);
