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
    let failedHere = report.numFailedTests ?? 0;
    // A file that failed without a failing test (an import error, a throwing beforeAll) counts once.
    for (const file of report.testResults ?? []) {
      const failedInFile = (file.assertionResults ?? []).filter((a) => a.status === 'failed').length;
      if (file.status === 'failed' && failedInFile === 0) failedHere += 1;
    }
    if (report.success === false && failedHere === 0) failedHere = 1;
    passed += report.numPassedTests ?? 0;
    failed += failedHere;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  }
}
if (missing.length > 0) {
  console.error(`no vitest report for: ${missing.join(', ')}`);
  failed += missing.length;
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || reports === 0 || passed === 0 ? 1 : 0);
