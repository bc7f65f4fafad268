#!/usr/bin/env node
// Runs unit suites on another Node major, with the binary from the npm registry's `node` package
// (`npx -y node@<major>`), first on PATH so child processes use it too. Which suites: CI's plan in
// scripts/node-majors-plan.mjs (why not all of them is explained there), or every package's with
// --all. Writes `.vitest-report.node<major>.json` per package for scripts/sum-test-reports.mjs.
// On Node 22 and later it also runs, in each package that has a `vitest.majors.config.ts`, the
// suite against the current majors of its peer libraries (`openai` 7, `ai` 7, `@ai-sdk/*` 4:
// they need Node 22, so they are never part of the Node 20 run), reported as
// `.vitest-report.node<major>-majors.json`; scripts/sum-test-reports.mjs expects those reports.
// Browser tests (apps/web `*.browser.test.ts`) are left to the main run on Node 20: they exercise
// Chromium, not Node, and leaving them out keeps CI under its time budget. bubblewrap, which the
// exec sandbox tests need, is installed first when missing (scripts/provision-test-deps.mjs).
// Usage: node scripts/test-on-node.mjs <major> [--all] [package-dir-substring]  (needs a prior build)
//   --all: every package's unit suite (default: the plan's suites for this major)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PEER_MAJORS_ON, SUITES_ON_MAJOR } from './node-majors-plan.mjs';
import { provisionTestDeps, ProvisionError } from './provision-test-deps.mjs';

const root = new URL('..', import.meta.url).pathname;
/** A package's suite against the current majors of its peers (see vitest.shared.ts `peerMajorsConfig`). */
const MAJORS_CONFIG = 'vitest.majors.config.ts';
const all = process.argv.includes('--all');
const [major, filter = ''] = process.argv.slice(2).filter((a) => a !== '--all');
if (!/^\d+$/.test(major ?? '')) {
  console.error('usage: node scripts/test-on-node.mjs <major> [--all] [filter]');
  process.exit(2);
}
const planned = SUITES_ON_MAJOR[major] ?? [];
const peerMajors = PEER_MAJORS_ON.includes(Number(major)) || (all && Number(major) >= 22);
const nodeBin = execFileSync('npx', ['-y', `node@${major}`, '-p', 'process.execPath'], { encoding: 'utf8' }).trim();
const version = execFileSync(nodeBin, ['--version'], { encoding: 'utf8' }).trim();
console.log(`::: unit tests on Node ${version} (${nodeBin})`);
const env = { ...process.env, PATH: `${dirname(nodeBin)}:${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` };
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const targets = [];
for (const group of ['packages', 'apps', 'tooling']) {
  for (const name of readdirSync(join(root, group)).sort()) {
    const dir = join(root, group, name);
    if (!existsSync(join(dir, 'package.json')) || !`${group}/${name}`.includes(filter)) continue;
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    if (!manifest.scripts?.test) continue;
    const unit = all || planned.includes(`${group}/${name}`);
    const majors = peerMajors && existsSync(join(dir, MAJORS_CONFIG));
    if (unit || majors) targets.push({ group, name, dir, packageName: manifest.name, unit, majors });
  }
}
try {
  provisionTestDeps({ only: ['bubblewrap'], packages: targets.map((t) => t.packageName) });
} catch (error) {
  if (!(error instanceof ProvisionError)) throw error;
  console.error(error.message);
  process.exit(1);
}
let failed = 0;
/** One vitest run in `dir` on this Node, its JSON report in `report`; `extra` picks the config. */
function runSuite(label, dir, report, extra = []) {
  const res = spawnSync(nodeBin, [vitest, 'run', ...extra, '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`, '--exclude=**/*.browser.test.ts', '--exclude=**/node_modules/**'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const summary = (res.stdout.match(/Tests\s+.*$/m)?.[0] ?? '').replace(/\x1b\[[0-9;]*m/g, '');
  console.log(`${res.status === 0 ? '✓' : '✗'} ${label} on Node ${major}: ${summary}`);
  if (res.status !== 0) {
    failed += 1;
    console.log((res.stdout + res.stderr).replace(/\x1b\[[0-9;]*m/g, '').split('\n').filter((l) => /FAIL|Error|×|✗/.test(l)).slice(0, 30).join('\n'));
  }
}
for (const { group, name, dir, unit, majors } of targets) {
  if (unit) runSuite(`${group}/${name}`, dir, `.vitest-report.node${major}.json`);
  if (majors) {
    runSuite(`${group}/${name} (current peer majors)`, dir, `.vitest-report.node${major}-majors.json`, ['-c', MAJORS_CONFIG]);
  }
}
process.exit(failed ? 1 : 0);
