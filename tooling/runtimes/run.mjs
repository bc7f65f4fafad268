#!/usr/bin/env node
// The runtime harness (issue 27): packs the portable packages, installs them in a plain npm
// project, and runs three programs in each runtime (Node 20/22/24, Bun, Deno, workerd with and
// without nodejs_compat, Vercel's edge-runtime, Chromium): the governor's conformance subset, the
// dialect smoke test, and the tool side (schema's argument checks, tools-core's defineTool).
// Every runtime's results are compared with Node 20's, byte for byte.
// Usage: node tooling/runtimes/run.mjs [--runtime id,id] [--program conformance,dialects,tools]
//          [--diagnose] [--jobs 2] [--json full.json] [--report vitest-shaped.json] [--work dir]
//          [--timeout 600] [--list]
// --report writes one check per runtime and program in the vitest JSON shape that
// scripts/sum-test-reports.mjs sums (as scripts/pack-smoke.mjs does), for a CI step.
// Exits 1 when any selected runtime fails to bundle, load or run a program, or differs from Node
// 20; 2 on bad usage. README.md in this folder says what runs where.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { firstDifference } from './src/compare.mjs';
import { packPackages, prepareConsumer } from './src/consumer.mjs';
import { ensureEngines, nodeBinary } from './src/engines.mjs';
import { defaultWorkDir, log } from './src/paths.mjs';
import { checkAgainstReference } from './src/reference-check.mjs';
import { formatReport, verdictOf, vitestShaped } from './src/report.mjs';
import { RUNTIMES } from './src/runners.mjs';
import { buildInputs } from './src/subset.mjs';

const ALL_PROGRAMS = ['conformance', 'dialects', 'tools', 'providers'];
const BASELINE = 'node20';

const { values } = parseArgs({
  options: {
    runtime: { type: 'string', multiple: true },
    program: { type: 'string', multiple: true },
    diagnose: { type: 'boolean', default: false },
    jobs: { type: 'string', default: '2' },
    json: { type: 'string' },
    report: { type: 'string' },
    work: { type: 'string', default: defaultWorkDir },
    timeout: { type: 'string', default: '600' },
    list: { type: 'boolean', default: false },
  },
});

if (values.list) {
  for (const r of RUNTIMES) console.log(`${r.id.padEnd(26)} ${r.label}: ${r.how}`);
  process.exit(0);
}

const split = (list) => (list ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
const wanted = split(values.runtime);
const unknown = wanted.filter((id) => !RUNTIMES.some((r) => r.id === id));
const programs = split(values.program).length ? split(values.program) : ALL_PROGRAMS;
const badPrograms = programs.filter((p) => !ALL_PROGRAMS.includes(p));
if (unknown.length || badPrograms.length) {
  console.error(`unknown ${unknown.length ? `runtime ${unknown.join(', ')} (see --list)` : `program ${badPrograms.join(', ')} (${ALL_PROGRAMS.join(', ')})`}`);
  process.exit(2);
}
// The baseline always runs: every other runtime is compared with it.
const selected = RUNTIMES.filter((r) => r.id === BASELINE || (wanted.length ? wanted.includes(r.id) : !r.diagnosis || values.diagnose));
const work = values.work;
const timeoutMs = Number(values.timeout) * 1000;
const jobs = Math.max(1, Number(values.jobs) || 1);
mkdirSync(work, { recursive: true });

const t0 = Date.now();
const load = { average1m: Number(loadavg()[0].toFixed(1)), cpus: availableParallelism() };
const phases = [];
const phase = (name, fn) => {
  const started = Date.now();
  const value = fn();
  phases.push(`${name} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return value;
};
if (selected.some((r) => !r.id.startsWith('node') && !r.id.startsWith('chromium'))) phase('engines', ensureEngines);
log('packing @nanobot/schema, governor, ai-sdk, langchain, tools-core, providers');
const tarballs = phase('build + pack', () => packPackages(work));
const consumer = phase('consumer', () => prepareConsumer(work, tarballs));
const built = phase('inputs', buildInputs);
const inputsDir = join(work, 'inputs');
mkdirSync(inputsDir, { recursive: true });
const inputs = {};
for (const p of programs) {
  inputs[p] = built[p];
  writeFileSync(join(inputsDir, `${p}.json`), built[p]);
}
// Fetch the Node binaries one at a time before the runtimes start in parallel.
phase('node binaries', () => {
  for (const major of [20, 22, 24]) if (selected.some((r) => r.id === `node${major}` || (major === 22 && r.id.startsWith('workerd')))) nodeBinary(major);
});
const setupMs = Date.now() - t0;
log(`set up in ${(setupMs / 1000).toFixed(1)} s (${phases.join(', ')}): ${built.counts.cases} conformance cases, ${built.counts.sessions} sessions (${built.counts.dialectSessions} in the dialect test)`);

const ctx = { consumer, inputsDir, inputs, programs, work, timeoutMs };
const results = new Map();
const queue = [...selected];
async function worker() {
  for (let r = queue.shift(); r; r = queue.shift()) {
    const started = Date.now();
    log(`${r.id}: running`);
    let result;
    try {
      result = await r.run(ctx);
    } catch (caught) {
      const error = /** @type {any} */ (caught);
      result = { version: '?', programs: Object.fromEntries(programs.map((p) => [p, { ok: false, stage: 'setup', error: String(error?.message ?? error) }])) };
    }
    result.ms = Date.now() - started;
    results.set(r.id, result);
    log(`${r.id}: done in ${(result.ms / 1000).toFixed(1)} s`);
  }
}
await Promise.all(Array.from({ length: Math.min(jobs, selected.length) }, worker));

// Outputs on disk: <work>/out/<runtime>/<program>.json is exactly the text that was compared.
const baseline = results.get(BASELINE);
const rows = [];
for (const r of selected) {
  const res = results.get(r.id);
  const row = { id: r.id, label: r.label, how: r.how, version: res.version, ms: res.ms, diagnosis: r.diagnosis === true, programs: {} };
  for (const p of programs) {
    const env = res.programs[p];
    const entry = { ok: env.ok, stage: env.stage, error: env.error, probe: env.probe, ms: env.ms, bundleWarnings: env.bundleWarnings };
    if (env.ok) {
      const dir = join(work, 'out', r.id);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${p}.json`), env.text);
      entry.output = join(dir, `${p}.json`);
      entry.results = env.text.split('\n').filter((l) => l.startsWith('{')).length;
      if (r.id === BASELINE) {
        if (p === 'conformance') entry.reference = checkAgainstReference(env.text, built.expected);
      } else if (baseline.programs[p]?.ok) {
        entry.difference = firstDifference(baseline.programs[p].text, env.text);
        entry.identical = entry.difference === null;
      }
    }
    row.programs[p] = entry;
  }
  row.verdict = verdictOf(row, r.id === BASELINE);
  rows.push(row);
}

const report = { date: new Date().toISOString(), load, jobs, setupMs, totalMs: Date.now() - t0, programs, counts: built.counts, runtimes: rows };
console.log(formatReport(report));
if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
if (values.report) writeFileSync(values.report, `${JSON.stringify(vitestShaped(report, join(import.meta.dirname, 'run.mjs')), null, 2)}\n`);
process.exit(rows.every((row) => row.verdict.pass) ? 0 : 1);
