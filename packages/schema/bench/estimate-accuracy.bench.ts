// The default (provider-view) estimate against an independent exact count, on the 16 recorded
// sessions in fixtures/transcripts: for every request (each prefix that ends before an
// assistant message), the estimate with o200k_base vs js-tiktoken's own whole-text
// `Tiktoken.encode` of the request as OpenAI's cookbook counts it (3 per message, role and
// every text field encoded, 1 per name, 3 to prime the reply; tool calls as id + name + raw
// arguments + 3; an image part as a 1024² high-detail image, 765). Printed per session: mean and
// max relative error and the share of requests within 3%, also for the cl100k provider view (no
// model given) and for the reference's estimate. Then the warm cost of both estimates (all
// requests of a session re-estimated on the same objects) as a ratio, the o200k load time, and
// whether importing @nanobot/schema loads any ranks (fresh process).
// Run: node scripts/bench.mjs estimate-accuracy
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { createEstimator, encodingLoadMs, estimatePromptTokens, type Message } from '../src/node.js';

const dir = join(process.env.NANOBOT_FIXTURES_DIR ?? resolve(import.meta.dirname, '..', '..', '..', 'fixtures'), 'transcripts');
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();

// Import check first, in a fresh process, before this one loads anything.
const entry = pathToFileURL(join(import.meta.dirname, '..', 'src', 'index.ts')).href;
const probe = spawnSync(
  process.execPath,
  ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', `const t0 = performance.now(); const s = await import(${JSON.stringify(entry)}); const ms = performance.now() - t0; console.log(JSON.stringify({ ms, o200k: s.encodingLoaded('o200k_base'), cl100k: s.encodingLoaded('cl100k_base') || s.tokenizerLoaded() }))`],
  { encoding: 'utf8', cwd: join(import.meta.dirname, '..') },
);
const imported = JSON.parse(probe.stdout.trim() || '{}') as { ms?: number; o200k?: boolean; cl100k?: boolean };

const exactEncoder = new Tiktoken(o200k);
const enc = (text: unknown): number => (typeof text === 'string' && text.length > 0 ? exactEncoder.encode(text, [], []).length : 0);

/** OpenAI's documented count of one message, o200k, by a whole-text encode of each field. */
function exactMessage(m: Message): number {
  const r = m as unknown as Record<string, unknown>;
  let n = 3 + enc(r.role);
  if (typeof r.content === 'string') n += enc(r.content);
  else if (Array.isArray(r.content)) {
    for (const part of r.content as { type?: string; text?: string }[]) n += part.type === 'text' ? enc(part.text) : part.type === 'image_url' ? 765 : enc(JSON.stringify(part));
  }
  if (typeof r.name === 'string' && r.name.length > 0) n += 1 + enc(r.name);
  n += enc(r.tool_call_id) + enc(r.reasoning_content);
  for (const call of (r.tool_calls as { id?: string; function?: { name?: string; arguments?: string } }[] | undefined) ?? []) {
    n += 3 + enc(call.id) + enc(call.function?.name) + enc(call.function?.arguments);
  }
  return n;
}

interface Stats { mean: number; max: number; within: number }
function stats(errors: number[]): Stats {
  const abs = errors.map(Math.abs);
  return { mean: abs.reduce((a, b) => a + b, 0) / abs.length, max: Math.max(...abs), within: abs.filter((e) => e <= 0.03).length / abs.length };
}
const pct = (v: number) => `${(v * 100).toFixed(2)}%`;
const row = (s: Stats) => `${pct(s.mean).padStart(8)}${pct(s.max).padStart(9)}${pct(s.within).padStart(8)}`;

const o200kEstimate = createEstimator({ tokenizer: 'o200k_base' });
const cl100kEstimate = createEstimator({ tokenizer: 'cl100k_base' });
// Load the ranks before timing anything (the load is reported on its own).
o200kEstimate.messageTokens({ role: 'user', content: 'warm up' });
cl100kEstimate.messageTokens({ role: 'user', content: 'warm up' });
estimatePromptTokens([{ role: 'user', content: 'warm up' }]);

console.log(`estimate vs exact o200k count (OpenAI cookbook, js-tiktoken Tiktoken.encode), per request = every prefix before an assistant message`);
console.log(`${'session'.padEnd(48)}${'reqs'.padStart(5)}  ${'default o200k: mean   max  ≤3%'.padEnd(26)}  ${'cl100k view: mean  max  ≤3%'.padEnd(26)}  reference: mean  max  ≤3%`);
const all = { o200k: [] as number[], cl100k: [] as number[], reference: [] as number[] };
let warmProvider = 0;
let warmReference = 0;
for (const file of files) {
  const messages = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Message[];
  const ends: number[] = [];
  for (let i = 1; i < messages.length; i++) if (messages[i].role === 'assistant') ends.push(i);
  const exactPer = messages.map(exactMessage);
  const errs = { o200k: [] as number[], cl100k: [] as number[], reference: [] as number[] };
  let running = 0;
  let at = 0;
  for (const end of ends) {
    while (at < end) running += exactPer[at++];
    const exact = 3 + running;
    const prefix = messages.slice(0, end);
    errs.o200k.push(o200kEstimate.promptTokens(prefix)[0] / exact - 1);
    errs.cl100k.push(cl100kEstimate.promptTokens(prefix)[0] / exact - 1);
    errs.reference.push(estimatePromptTokens(prefix) / exact - 1);
  }
  // Warm: every request of the session again, on the same message objects (as a runner does).
  const prefixes = ends.map((end) => messages.slice(0, end));
  const time = (f: () => void): number => {
    const t = [0, 1, 2].map(() => {
      const t0 = performance.now();
      f();
      return performance.now() - t0;
    });
    return t.sort((a, b) => a - b)[1];
  };
  warmProvider += time(() => { for (const p of prefixes) o200kEstimate.promptTokens(p); });
  warmReference += time(() => { for (const p of prefixes) estimatePromptTokens(p); });
  for (const k of ['o200k', 'cl100k', 'reference'] as const) all[k].push(...errs[k]);
  console.log(`${file.replace(/\.json$/, '').slice(0, 46).padEnd(48)}${String(ends.length).padStart(5)}  ${row(stats(errs.o200k)).padEnd(26)}  ${row(stats(errs.cl100k)).padEnd(26)}  ${row(stats(errs.reference))}`);
}
console.log(`${'all 16'.padEnd(48)}${String(all.o200k.length).padStart(5)}  ${row(stats(all.o200k)).padEnd(26)}  ${row(stats(all.cl100k)).padEnd(26)}  ${row(stats(all.reference))}`);
console.log(`warm re-estimate of every request of all sessions: default ${warmProvider.toFixed(1)} ms, reference ${warmReference.toFixed(1)} ms (default / reference = ${(warmProvider / warmReference).toFixed(2)}×)`);
console.log(`o200k_base ranks loaded on first use in ${encodingLoadMs('o200k_base')?.toFixed(0)} ms; importing @nanobot/schema took ${imported.ms?.toFixed(0)} ms and loaded o200k: ${imported.o200k}, cl100k: ${imported.cl100k}`);
