// govern() on the 16 recorded sessions in fixtures/transcripts, at input budgets of 8k, 32k,
// 128k, 200k tokens and none, against JSON.stringify of the same transcript (the floor every
// request pays once to go on the wire), all measured in this one run. "cold": fresh message
// objects, so every message is tokenised once (the first request of a resumed session);
// "warm": the same objects again (every later request; estimates are cached per message).
// Prints absolute figures and ratios; asserts nothing about time.
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Message } from '@nanobot/schema';
import { govern, type GovernOptions } from '../src/index.js';
import { medianTime } from './median-time.js';

const dir = join(process.env.NANOBOT_FIXTURES_DIR ?? resolve(import.meta.dirname, '..', '..', '..', 'fixtures'), 'transcripts');
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();
const BUDGETS: [string, number | null][] = [['8k', 8_000], ['32k', 32_000], ['128k', 128_000], ['200k', 200_000], ['none', null]];
const options = (tokens: number | null): GovernOptions => (tokens === null ? {} : { contextWindowTokens: tokens, contextBlockLimit: tokens });

const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
const cell = (v: number, base: number, width = 16) => ` ${ms(v)} (${(v / base).toFixed(1)}×)`.padStart(width);

// Warm-up on a synthetic history (JIT, tokenizer tables), so the first file's cold figure is not
// the process start-up. The tokenizer's piece cache is process-wide, as in a long-running agent.
const warmup: Message[] = [{ role: 'user', content: 'warm up '.repeat(2000) }, { role: 'assistant', content: 'ok' }];
for (let i = 0; i < 20; i++) govern(warmup.map((m) => ({ ...m })), options(8_000));

console.log(`govern on ${files.length} recorded transcripts: ms (ratio to one JSON.stringify of the transcript), median of 5 warm runs`);
console.log(`${'transcript'.padEnd(52)}${'msgs'.padStart(6)}${'stringify'.padStart(11)}${'cold 200k'.padStart(20)}${BUDGETS.map(([l]) => `warm ${l}`.padStart(16)).join('')}`);
const totals = { stringify: 0, cold: 0, warm: new Map<string, number>() };
const t0 = performance.now();
for (const file of files) {
  const text = readFileSync(join(dir, file), 'utf8');
  const messages = JSON.parse(text) as Message[];
  const stringify = medianTime(() => JSON.stringify(messages), 5);
  // Cold: fresh objects, nothing tokenised yet (one run; it is the expensive one).
  const fresh = JSON.parse(text) as Message[];
  const cold = medianTime(() => govern(fresh, options(200_000)), 1);
  // Warm: the objects of the cold run, as a runner governs the same history each request.
  const warm = BUDGETS.map(([label, tokens]) => {
    govern(fresh, options(tokens));
    const t = medianTime(() => govern(fresh, options(tokens)), 5);
    totals.warm.set(label, (totals.warm.get(label) ?? 0) + t);
    return cell(t, stringify);
  });
  totals.stringify += stringify;
  totals.cold += cold;
  console.log(`${file.replace(/\.json$/, '').slice(0, 50).padEnd(52)}${String(messages.length).padStart(6)}${ms(stringify).padStart(11)}${cell(cold, stringify, 20)}${warm.join('')}`);
}
console.log(`${'all 16'.padEnd(52)}${''.padStart(6)}${ms(totals.stringify).padStart(11)}${cell(totals.cold, totals.stringify, 20)}${BUDGETS.map(([l]) => cell(totals.warm.get(l)!, totals.stringify)).join('')}`);
console.log(`(whole run ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
