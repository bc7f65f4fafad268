#!/usr/bin/env node
// Builds one workspace package and what it needs with turbo, then (optionally) runs a program of
// it in this same process — the root scripts `pnpm demo`, `pnpm nanobot …` and `pnpm web` — so a
// person sees one progress line while it builds (what, how far) and then only the program's own
// output, not ~75 lines of build log. The build's output is shown only when it fails.
//
// Usage: node scripts/quiet-build.mjs <package-name> [<program.js> [args…]]
//        node scripts/quiet-build.mjs --packages=<name>,<name>…   (no program; empty: every package)
//   The second form is the test command's build (scripts/test.mjs): every package the suites need,
//   built once before any suite starts.
//   On a terminal: one line on stderr, redrawn as packages finish, erased when the build is done.
//   Otherwise: one line when the build is done (`built <package> (… cached) in N s`).
//   Ctrl-C during the build stops it quietly with status 0; once the program runs, the program
//   handles Ctrl-C itself (run the script with `exec`, so no shell in between turns a clean exit
//   into `ELIFECYCLE Command failed`).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const argv = process.argv.slice(2);
const list = argv[0]?.startsWith('--packages=') ? argv[0].slice('--packages='.length).split(',').filter(Boolean) : null;
const [pkg, program, ...programArgs] = list === null ? argv : [list.length === 0 ? 'every package' : list.join(', ')];
if (!pkg || (list !== null && argv.length > 1)) {
  process.stderr.write('usage: node scripts/quiet-build.mjs <package-name> [<program.js> [args…]]\n       node scripts/quiet-build.mjs --packages=<name>,<name>…\n');
  process.exit(2);
}

const tty = process.stderr.isTTY === true;
const env = { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` };
const started = Date.now();
const state = { total: null, packages: null, done: 0, cached: 0, last: '' };
let shown = false;
let drawn = '';

function seconds() {
  return ((Date.now() - started) / 1000).toFixed(0);
}

function draw() {
  if (!tty) return;
  const total = state.total ?? state.packages;
  const how = total === null ? 'checking what needs building' : `${Math.min(state.done, total)} of ${total} packages${state.cached > 0 ? ` (${state.cached} cached)` : ''}`;
  const last = state.last ? ` · ${state.last.replace(/^@nanobot\//, '')} done` : '';
  const columns = process.stderr.columns || 80;
  let line = `building ${pkg} · ${how} · ${seconds()} s${last}`;
  if (line === drawn) return;
  drawn = line;
  if (line.length > columns - 1) line = `${line.slice(0, columns - 2)}…`;
  process.stderr.write(`\r\u001b[2K${line}`);
  shown = true;
}

function clear() {
  if (shown) process.stderr.write('\r\u001b[2K');
  shown = false;
  drawn = '';
}

function run(args, onLine) {
  const child = spawn('turbo', args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let pending = '';
  const take = (chunk) => {
    output += chunk;
    pending += chunk;
    let nl = pending.indexOf('\n');
    while (nl >= 0) {
      onLine?.(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
      nl = pending.indexOf('\n');
    }
  };
  child.stdout.setEncoding('utf8').on('data', take);
  child.stderr.setEncoding('utf8').on('data', take);
  const done = new Promise((resolveDone) => {
    child.on('error', (error) => resolveDone({ status: 1, output: `${output}${error.message}\n` }));
    child.on('close', (status, signal) => resolveDone({ status: status ?? (signal ? 1 : 0), signal, output }));
  });
  return { child, done };
}

const filters = (list ?? [pkg]).map((name) => `--filter=${name}...`);
const build = ['run', 'build', '--concurrency=2', ...filters];
// The dry run says which build tasks there are and their input hashes. When every task's hash is
// the one a quiet build last built (or restored) and its outputs are there, nothing is built:
// turbo would only replay its cache over the same files — which rewrites them under a running
// program (another test suite's server loading dist/, in the test command), and takes as long as
// the check. One stamp per task, shared by every quiet build: the test command's build of every
// package counts for a later `pnpm nanobot`. (The hash covers the inputs turbo.json declares,
// env included: a variable there that a test process sets, as vitest sets NODE_ENV=test, would
// make every root script a test runs rebuild dist/ under the other suites.)
const stampFile = join(root, 'node_modules', '.cache', 'quiet-build', 'tasks.json');
let tasks = null;
let interrupted = false;
const onInterrupt = () => {
  // The terminal sent Ctrl-C to turbo too: wait for it to stop, then leave quietly.
  interrupted = true;
};
process.on('SIGINT', onInterrupt);
const timer = tty ? setInterval(draw, 1000) : null;
draw();
const dry = run([...build, '--dry=json']);
process.on('SIGTERM', () => {
  dry.child.kill('SIGTERM');
  real?.child.kill('SIGTERM');
  interrupted = true;
});
let real = null;
const planned = await dry.done;
if (planned.status === 0) {
  try {
    tasks = JSON.parse(planned.output.slice(planned.output.indexOf('{'))).tasks.filter((t) => t.command !== '<NONEXISTENT>');
    state.total = tasks.length;
  } catch {
    tasks = null;
  }
}
const stamp = existsSync(stampFile) ? JSON.parse(readFileSync(stampFile, 'utf8')) : {};
const fresh =
  tasks !== null &&
  tasks.length > 0 &&
  tasks.every((t) => stamp[t.taskId] === t.hash && (t.outputs ?? []).every((o) => !o.endsWith('/**') || existsSync(join(root, t.directory, o.slice(0, -3)))));
let result = { status: 0, output: '' };
if (!fresh && !interrupted) {
  draw();
  real = run([...build, '--output-logs=full', '--log-order=grouped'], (line) => {
    const scope = /Running build in (\d+) packages?/.exec(line);
    if (scope) state.packages = Number(scope[1]);
    const task = /^(\S+):build: (cache hit|cache miss|cache bypass)/.exec(line);
    if (task) {
      state.done += 1;
      if (task[2] === 'cache hit') state.cached += 1;
      state.last = task[1];
    }
    draw();
  });
  result = await real.done;
  if (result.status === 0 && tasks !== null) {
    mkdirSync(join(stampFile, '..'), { recursive: true });
    // Re-read: another quiet build may have stamped its own tasks meanwhile.
    const now = existsSync(stampFile) ? JSON.parse(readFileSync(stampFile, 'utf8')) : {};
    writeFileSync(stampFile, JSON.stringify({ ...now, ...Object.fromEntries(tasks.map((t) => [t.taskId, t.hash])) }, null, 2));
  }
}
if (timer) clearInterval(timer);
clear();
if (interrupted) process.exit(0);
if (result.status !== 0) {
  process.stderr.write(result.output);
  process.exit(result.status);
}
const cached = /Cached:\s+(\d+) cached, (\d+) total/.exec(result.output);
if (!tty) {
  const what = fresh ? ' (up to date)' : cached ? ` (${cached[1]} of ${cached[2]} packages cached)` : '';
  process.stderr.write(`built ${pkg}${what} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
process.removeListener('SIGINT', onInterrupt);
process.removeAllListeners('SIGTERM');
if (program) {
  // The program runs in this process (no second Node start-up, and Ctrl-C goes to it alone), as
  // if started with `node <program> args…`.
  const path = resolve(root, program);
  process.argv = [process.argv[0], path, ...programArgs];
  await import(pathToFileURL(path).href);
}
