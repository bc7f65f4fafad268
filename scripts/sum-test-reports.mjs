#!/usr/bin/env node
// Sums vitest's JSON reports of every package into the one closing line CI reads:
// `tests: N passed, N failed`, after listing every failing test by name.
// Exits non-zero when anything failed or an expected report is missing.
// Usage: node scripts/sum-test-reports.mjs [--variants node22,node24] [--extra dir]
//   --variants: also expect the reports CI's plan for those Node majors produces
//     (scripts/node-majors-plan.mjs): `.vitest-report.node<N>.json` in each package whose unit
//     suite runs on N, `.vitest-report.node<N>-majors.json` in each package with a
//     `vitest.majors.config.ts` (its suite against the current peer majors; test-on-node.mjs)
//   --extra: also sum every *.json report in dir (the pack smoke test, release checks)
//   Always: the test command's own checks in .test-run/ (scripts/test.mjs: no suite rewrote dist/)
//   --clean: delete all reports and exit (run before a test run so no stale report counts)
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { expectedVariants } from './node-majors-plan.mjs';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { variants: { type: 'string', default: '' }, extra: { type: 'string', multiple: true, default: [] }, clean: { type: 'boolean', default: false } } });
const majors = values.variants.split(',').filter(Boolean).map((v) => {
  const n = /^node(\d+)$/.exec(v)?.[1];
  if (n === undefined) throw new Error(`--variants takes node<N>,…; got ${v}`);
  return Number(n);
});

const packageDirs = [];
for (const group of ['packages', 'apps', 'tooling']) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir).sort()) if (existsSync(join(dir, name, 'package.json'))) packageDirs.push(join(dir, name));
}

if (values.clean) {
  for (const dir of packageDirs) for (const f of readdirSync(dir)) if (/^\.vitest-report.*\.json$/.test(f)) rmSync(join(dir, f));
  rmSync(join(root, '.test-run'), { recursive: true, force: true });
  process.exit(0);
}

let passed = 0;
let failed = 0;
let skipped = 0;
let reports = 0;
const missing = [];
const failures = [];

function add(file, label) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  reports += 1;
  let failedHere = report.numFailedTests ?? 0;
  for (const result of report.testResults ?? []) {
    const where = result.name ? relative(root, result.name) : label;
    const failedInFile = (result.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const a of failedInFile) failures.push(`${label}: ${where} > ${a.fullName ?? a.title}`);
    // A file that failed without a failing test (an import error, a throwing beforeAll) counts once.
    if (result.status === 'failed' && failedInFile.length === 0) {
      failedHere += 1;
      failures.push(`${label}: ${where} (${String(result.message ?? 'failed to run').split('\n')[0]})`);
    }
  }
  if (report.success === false && failedHere === 0) {
    failedHere = 1;
    failures.push(`${label}: run failed`);
  }
  passed += report.numPassedTests ?? 0;
  failed += failedHere;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}

for (const dir of packageDirs) {
  const expected = ['', ...expectedVariants(relative(root, dir), existsSync(join(dir, 'vitest.majors.config.ts')), majors).map((v) => `.${v}`)];
  for (const v of expected) {
    const file = join(dir, `.vitest-report${v}.json`);
    const label = `${relative(root, dir)}${v ? ` (${v.slice(1)})` : ''}`;
    if (existsSync(file)) add(file, label);
    else missing.push(label);
  }
}
for (const extra of [...(existsSync(join(root, '.test-run')) ? [join(root, '.test-run')] : []), ...values.extra]) {
  if (!existsSync(extra)) {
    missing.push(extra);
    continue;
  }
  for (const f of readdirSync(extra).sort()) if (f.endsWith('.json')) add(join(extra, f), f.replace(/\.json$/, ''));
}
if (missing.length > 0) {
  console.error(`no test report for: ${missing.join(', ')}`);
  failed += missing.length;
}
if (failures.length > 0) {
  console.log(`failing tests (${failures.length}):`);
  for (const f of failures) console.log(`  ✗ ${f}`);
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || reports === 0 || passed === 0 ? 1 : 0);
