#!/usr/bin/env node
// Sums vitest's JSON reports of every package into the one closing line CI reads:
// `tests: N passed, N failed`. Exits non-zero when anything failed or no report exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
let passed = 0;
let failed = 0;
let skipped = 0;
let reports = 0;
const missing = [];
for (const group of ['packages', 'apps', 'tooling']) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir)) {
    if (!existsSync(join(dir, name, 'package.json'))) continue;
    const file = join(dir, name, '.vitest-report.json');
    if (!existsSync(file)) {
      missing.push(`${group}/${name}`);
      continue;
    }
    const report = JSON.parse(readFileSync(file, 'utf8'));
    reports += 1;
    passed += report.numPassedTests ?? 0;
    failed += (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0);
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    if (report.success === false && (report.numFailedTests ?? 0) === 0 && (report.numFailedTestSuites ?? 0) === 0) failed += 1;
  }
}
if (missing.length > 0) {
  console.error(`no vitest report for: ${missing.join(', ')}`);
  failed += missing.length;
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || reports === 0 || passed === 0 ? 1 : 0);
