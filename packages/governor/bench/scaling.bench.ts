// govern() scaling on long histories that fit: a warm call (the same history governed again)
// at 1k, 10k and 100k messages, and a growing history (each call appends one step to the
// previous call's history, as a runner does) at 10k and 100k. Each figure is the median of
// several rounds, each round itself a median; the machine is shared, so its load average is
// printed with the figures. Prints ratios measured in this one run; asserts nothing.
import { loadavg } from 'node:os';
import type { Message } from '@nanobot/schema';
import { govern, type GovernOptions } from '@nanobot/governor';
import { medianTime } from './median-time.js';
import { syntheticHistory } from '@nanobot-internal/test-support';

const FITS: GovernOptions = { contextWindowTokens: 50_000_000, maxOutputTokens: 4096 };
const ROUNDS = 5;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms: number): string => `${ms.toFixed(3)} ms`;
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

function warm(n: number): number {
  const h = syntheticHistory(n, 3);
  for (let i = 0; i < 10; i++) govern(h, FITS);
  const repeat = n >= 100_000 ? 15 : 41;
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(medianTime(() => { govern(h, FITS); }, repeat));
  return median(rounds);
}

/** Median per call over `calls` calls, each on the previous history plus one step. */
function growing(n: number, calls: number): number {
  const h = syntheticHistory(n + 8 * calls, 11 + n);
  const stepEnd = (from: number): number => {
    let end = from + 1;
    while (h[end]?.role === 'tool') end++;
    return end;
  };
  let end = stepEnd(n - 1);
  govern(h.slice(0, end), FITS);
  const per: number[] = [];
  for (let k = 0; k < calls; k++) {
    end = stepEnd(end);
    const list: Message[] = h.slice(0, end); // not timed
    const t0 = performance.now();
    govern(list, FITS);
    per.push(performance.now() - t0);
  }
  return median(per);
}

console.log(`load average at start: ${load()} (2 shared cores: figures vary with it)`);
console.log('warm govern on a history that fits (median of medians):');
const sizes = [1_000, 10_000, 100_000];
const warmMs = sizes.map((n) => {
  const ms = warm(n);
  console.log(`  ${String(n).padStart(7)} messages: ${fmt(ms)}`);
  return ms;
});
console.log(`  ratio 10k/1k = ${(warmMs[1] / warmMs[0]).toFixed(2)}x, 100k/10k = ${(warmMs[2] / warmMs[1]).toFixed(2)}x (linear: 10x; goal: 100k/10k <= 12x)`);
console.log('growing history, one step appended per call (median per call):');
const grow10k = growing(10_000, 100);
const grow100k = growing(100_000, 40);
console.log(`   10,000 messages: ${fmt(grow10k)}`);
console.log(`  100,000 messages: ${fmt(grow100k)} (ratio 100k/10k = ${(grow100k / grow10k).toFixed(2)}x)`);
console.log(`load average at end: ${load()}`);
