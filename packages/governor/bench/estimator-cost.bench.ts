// What the default (provider-view) count costs govern, against the reference's count, on the 16
// recorded sessions in fixtures/transcripts: warm govern (the same message objects again, as a
// runner's next request) at a 32k and a 200k budget, with the default cl100k view, the o200k
// view (`model: 'gpt-4o'`-style) and the reference's estimate, measured in this one run, and how
// many sessions fit whole at 32k by each count (the provider view keeps more history).
// Prints ratios; asserts nothing about time.
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { referenceEstimator, type Message } from '@nanobot/schema';
import { govern, type GovernOptions } from '../src/index.js';
import { medianTime } from './median-time.js';

const dir = join(process.env.NANOBOT_FIXTURES_DIR ?? resolve(import.meta.dirname, '..', '..', '..', 'fixtures'), 'transcripts');
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();
const sessions = files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Message[]);
const variants: [string, GovernOptions][] = [['default cl100k', {}], ['o200k', { tokenizer: 'o200k_base' }], ['reference count', { estimator: referenceEstimator }]];

for (const budget of [32_000, 200_000]) {
  const base: GovernOptions = { contextWindowTokens: budget, contextBlockLimit: budget };
  const total = new Map<string, number>();
  const kept = new Map<string, number>();
  for (const messages of sessions) {
    const best = new Map<string, number>();
    for (const [label, extra] of variants) {
      const { messages: sent } = govern(messages, { ...base, ...extra }); // cold: tokenises once
      kept.set(label, (kept.get(label) ?? 0) + sent.length);
    }
    // Three rounds in rotated order (the machine is shared and the JIT warms up): the best median.
    for (let round = 0; round < 3; round++) {
      for (let v = 0; v < variants.length; v++) {
        const [label, extra] = variants[(v + round) % variants.length];
        const options = { ...base, ...extra };
        const t = medianTime(() => govern(messages, options), 5);
        best.set(label, Math.min(best.get(label) ?? Infinity, t));
      }
    }
    for (const [label, t] of best) total.set(label, (total.get(label) ?? 0) + t);
  }
  const ref = total.get('reference count')!;
  console.log(`warm govern at ${budget / 1000}k over ${files.length} sessions: ${variants.map(([l]) => `${l} ${total.get(l)!.toFixed(1)} ms (${(total.get(l)! / ref).toFixed(2)}×), ${kept.get(l)} messages sent`).join('; ')}`);
}
