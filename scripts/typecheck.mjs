#!/usr/bin/env node
// `pnpm typecheck`: every workspace package's type-check configs, exactly those its own
// `typecheck` script lists (`tsc -p <config> [--noEmit]`, joined by `&&`), checked with the
// TypeScript compiler API — and the configs whose compiler options are identical merged into one
// program, so each file is checked once.
//
// Why: every package's tsconfig resolves its sibling @nanobot/* packages to their TypeScript
// sources (the `source` condition), so the 20-odd configs checked one after another re-check the
// shared sources again and again (the CLI's config alone pulls in nearly every package). Merged,
// the whole repository is ~4 programs. What merging changes: a global declaration in one package
// is visible to the others of its program (there are none today; `declare global` is rare and
// would show up in review).
//
// Usage: node scripts/typecheck.mjs [--list]
//   --list: print the programs (which configs each merges, how many files) without checking.
// Exits non-zero on any error, a config that does not parse, or a `typecheck` script of another
// form (a package must never drop out of the check silently).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';

const root = resolve(import.meta.dirname, '..');
const ts = createRequire(join(root, 'package.json'))('typescript');
const args = process.argv.slice(2);
const TSC_STEP = /^tsc\s+-p\s+(\S+)(?:\s+--noEmit)?$/;

/** Every config a workspace package's `typecheck` script checks, as absolute paths. */
function listConfigs() {
  const configs = [];
  const problems = [];
  for (const group of ['packages', 'apps', 'tooling']) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const manifestPath = join(dir, name, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const script = JSON.parse(readFileSync(manifestPath, 'utf8')).scripts?.typecheck;
      if (script === undefined) continue;
      for (const step of script.split('&&').map((s) => s.trim())) {
        const match = TSC_STEP.exec(step);
        if (match === null) problems.push(`${group}/${name}: typecheck step "${step}" is not "tsc -p <config> [--noEmit]"`);
        else configs.push(join(dir, name, match[1]));
      }
    }
  }
  return { configs, problems };
}

/** The programs to check: configs with identical options share one, its files the union of theirs. */
function planPrograms() {
  const { configs, problems } = listConfigs();
  const programs = new Map();
  for (const configPath of configs) {
    const read = ts.readConfigFile(configPath, ts.sys.readFile);
    if (read.error) {
      problems.push(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
      continue;
    }
    const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configPath), { noEmit: true }, configPath);
    const errors = parsed.errors.filter((d) => d.code !== 18003); // 18003: no inputs (checked below)
    if (errors.length > 0) problems.push(...errors.map((d) => `${relative(root, configPath)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`));
    if (parsed.fileNames.length === 0) problems.push(`${relative(root, configPath)}: no input files`);
    // `configFilePath` names the config itself; everything else (including `paths` and the
    // directory they are resolved against) must match for two configs to share a program.
    const { configFilePath: _ignored, ...options } = parsed.options;
    const key = JSON.stringify(options, Object.keys(options).sort());
    const program = programs.get(key) ?? { options, configs: [], files: new Set() };
    program.configs.push(relative(root, configPath));
    for (const f of parsed.fileNames) program.files.add(f);
    programs.set(key, program);
  }
  return { programs: [...programs.values()], problems };
}

/** Checks program `index` of the plan; prints its diagnostics; returns their count. */
function checkProgram(index) {
  const { programs } = planPrograms();
  const { options, files } = programs[index];
  const program = ts.createProgram({ rootNames: [...files], options });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length > 0) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
    process.stdout.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  }
  return diagnostics.length;
}

if (args[0] === '--program') {
  process.exit(checkProgram(Number(args[1])) > 0 ? 1 : 0);
}

const { programs, problems } = planPrograms();
for (const p of problems) console.error(`typecheck: ${p}`);
if (args.includes('--list')) {
  programs.forEach((p, i) => console.log(`program ${i}: ${p.files.size} files from ${p.configs.join(', ')}`));
  process.exit(problems.length > 0 ? 1 : 0);
}

// The largest programs first, two at a time (the machines have 2 cores), each in its own process.
const order = programs.map((p, i) => ({ i, size: p.files.size })).sort((a, b) => b.size - a.size);
let failed = problems.length > 0;
async function lane() {
  for (let next = order.shift(); next !== undefined; next = order.shift()) {
    const started = Date.now();
    const status = await new Promise((done) => {
      const child = spawn(process.execPath, [import.meta.filename, '--program', String(next.i)], { stdio: 'inherit' });
      child.on('close', (code) => done(code ?? 1));
    });
    const { configs, files } = programs[next.i];
    console.log(`${status === 0 ? '✓' : '✗'} ${configs.join(', ')} (${files.size} files, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
    if (status !== 0) failed = true;
  }
}
await Promise.all([lane(), lane()]);
process.exit(failed ? 1 : 0);
