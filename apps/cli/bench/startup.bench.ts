// How long `nanobot --help` takes to start, against a bare `node -e 0` measured in the same run.
// Spawns the built CLI (dist/bin.js, as users run it); build it first. Prints medians and the
// ratio; asserts nothing (the target is < 300 ms on the dev machine).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const bin = join(import.meta.dirname, '..', 'dist', 'bin.js');
if (!existsSync(bin)) {
  console.log(`skipped: ${bin} is missing (run pnpm --filter @nanobot/cli build)`);
  process.exit(0);
}
const runs = Number(process.env.BENCH_RUNS ?? 15);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function time(args: string[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    out.push(performance.now() - started);
    if (res.status !== 0) throw new Error(`${args.join(' ')} exited ${res.status}: ${res.stderr}`);
  }
  return out;
}

// Interleave the measurements so a busy moment hurts both equally; warm the file cache first.
time(['-e', '0']);
time([bin, '--help']);
const bare: number[] = [];
const help: number[] = [];
const version: number[] = [];
for (let round = 0; round < 3; round++) {
  bare.push(...time(['-e', '0']));
  help.push(...time([bin, '--help']));
  version.push(...time([bin, '--version']));
}
const b = median(bare);
const h = median(help);
const v = median(version);
console.log(`node -e 0           median ${b.toFixed(1)} ms over ${bare.length} runs`);
console.log(`nanobot --help      median ${h.toFixed(1)} ms (${(h / b).toFixed(2)}x bare node, +${(h - b).toFixed(1)} ms)`);
console.log(`nanobot --version   median ${v.toFixed(1)} ms (${(v / b).toFixed(2)}x bare node)`);
console.log(`target: --help under 300 ms -> ${h < 300 ? 'met' : 'NOT met'} on this machine`);
