// govern() cost: growth with history size, a warm under-budget history against the floor any
// request pays (JSON.stringify once), and repeated calls on a growing history. Prints absolute
// figures and ratios measured in this run; asserts nothing about time.
import { estimatePromptTokens } from '@nanobot/schema';
import { govern, type GovernOptions } from '@nanobot/governor';
import { medianTime } from './median-time.js';
import { syntheticHistory } from '@nanobot-internal/test-support';

const history = syntheticHistory;

function fastest<T>(setup: () => T, fn: (input: T) => void, repeat: number): number {
  let best = Infinity;
  for (let i = 0; i < repeat; i++) {
    const input = setup(); // not timed
    const t0 = performance.now();
    fn(input);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
const big: GovernOptions = { contextWindowTokens: 50_000_000, maxOutputTokens: 4096 };

// 1. Warm, under budget, 10k: against JSON.stringify of the same history.
console.log('1) warm under-budget 10k history vs JSON.stringify of it');
{
  const h = history(10_000, 3);
  for (let i = 0; i < 20; i++) { govern(h, big); JSON.stringify(h); } // warm caches and JIT
  const g = medianTime(() => { govern(h, big); }, 31);
  const j = medianTime(() => { JSON.stringify(h); }, 31);
  console.log(`   govern ${fmt(g)}, JSON.stringify ${fmt(j)}, ratio govern/stringify = ${(g / j).toFixed(2)} (target < 1)`);
  for (let i = 0; i < 10; i++) govern(h);
  const noBudget = medianTime(() => { govern(h); }, 31);
  console.log(`   without a window (repairs only): ${fmt(noBudget)}, ratio = ${(noBudget / j).toFixed(2)}`);
}

// 2. Growing history, as a runner sees it: before each request the history has grown by one
// step (a user message, a reply, or an assistant turn with its tool results).
console.log('2) repeated calls on a growing history (one new step each)');
for (const n of [1_000, 10_000]) {
  const h = history(n + 400, 11 + n);
  let end = n;
  while (h[end]?.role === 'tool') end++;
  govern(h.slice(0, end), big);
  const per: number[] = [];
  for (let k = 0; k < 100; k++) {
    end++;
    while (h[end]?.role === 'tool') end++;
    const cur = h.slice(0, end);
    const t0 = performance.now();
    govern(cur, big);
    per.push(performance.now() - t0);
  }
  per.sort((a, b) => a - b);
  const median = per[50];
  const coldFull = fastest(() => history(n, 999 + n), (fresh) => { govern(fresh, big); }, 1);
  console.log(`   history ${n}: median per call ${fmt(median)} vs cold govern of the whole history ${fmt(coldFull)} (ratio ${(median / coldFull).toFixed(3)})`);
}

// 3. Growth (last: the 100k heap would disturb the small measurements). Each run uses fresh
// messages; the schema's token estimate (tokenising everything once) is timed apart from the
// governor's own passes, since it dominates a cold call.
console.log('3) govern on fresh histories (cold caches)');
const sizes = [1_000, 10_000, 100_000];
const totals: number[] = [];
const own: number[] = [];
for (let i = 0; i < 3; i++) govern(history(1_000, 424242 + i), big); // JIT warm-up, not timed
for (const n of sizes) {
  let best = { total: Infinity, tokens: 0, gov: 0 };
  for (let r = 0; r < (n >= 100_000 ? 2 : n >= 10_000 ? 4 : 10); r++) {
    const h = history(n, (Math.random() * 1e6) | 0); // not timed
    const t0 = performance.now();
    estimatePromptTokens(h, null);
    const t1 = performance.now();
    govern(h, big);
    const t2 = performance.now();
    if (t2 - t0 < best.total) best = { total: t2 - t0, tokens: t1 - t0, gov: t2 - t1 };
  }
  totals.push(best.total);
  own.push(best.gov);
  console.log(`   ${String(n).padStart(7)} messages: ${fmt(best.total)} (tokenising ${fmt(best.tokens)}, governor passes ${fmt(best.gov)})`);
}
console.log(`   total      ratio 10k/1k = ${(totals[1] / totals[0]).toFixed(2)}x, 100k/10k = ${(totals[2] / totals[1]).toFixed(2)}x (linear: about 10x; budget: <= 12x)`);
console.log(`   governor   ratio 10k/1k = ${(own[1] / own[0]).toFixed(2)}x, 100k/10k = ${(own[2] / own[1]).toFixed(2)}x`);
{
  const h = history(100_000, 7);
  const over: GovernOptions = { contextWindowTokens: 200_000, maxOutputTokens: 4096, inflightStartIndex: 90_000, compactedToolCallIds: new Set() };
  const ms = medianTime(() => { govern(h, over); }, 1);
  const warm = medianTime(() => { govern(h, { ...over, compactedToolCallIds: new Set() }); }, 3);
  console.log(`   100k messages over a 200k-token window (compaction + snipping): cold ${fmt(ms)}, warm ${fmt(warm)}`);
}
