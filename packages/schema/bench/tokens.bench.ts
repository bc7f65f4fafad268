// estimatePromptTokens on a 10,000-message history: cold (nothing cached) vs warm (the same
// history plus 10 new messages), checked against a full encode of the joined payload; and the
// package's import time in a fresh node process (ranks must not load at import); and the heap the
// token caches retain per message of a recorded-session history.
// Run: node scripts/bench.mjs schema
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { clearTokenCaches, countTokens, estimateMessageTokens, estimatePromptTokens, pythonJsonDumps, type Message } from '../src/node.js';

const pkgDir = join(import.meta.dirname, '..');

// Deterministic content generator (mulberry32).
let seed = 0x5eed;
function rand(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const WORDS = ['the', 'file', 'config', 'error', 'value', "it's", 'don\'t', 'tokens', '42', '3.14', 'naïve', '日本語', '😀', 'function', 'return', '{', '}', '(x)', '=>', 'path/to/file.ts', '  ', '\t', 'résumé', 'SELECT', '*', 'FROM'];
function text(words: number): string {
  let out = '';
  for (let i = 0; i < words; i++) {
    out += WORDS[Math.floor(rand() * WORDS.length)]!;
    const r = rand();
    out += r < 0.08 ? '\n' : r < 0.1 ? '\n\n' : r < 0.12 ? '   ' : ' ';
  }
  return out;
}
let callId = 0;
function turn(): Message[] {
  const id = `call_${callId++}`;
  return [
    { role: 'user', content: text(10 + Math.floor(rand() * 40)) },
    {
      role: 'assistant',
      content: text(Math.floor(rand() * 30)),
      tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: pythonJsonDumps({ path: text(3).trim(), limit: 200 }) } }],
    },
    { role: 'tool', tool_call_id: id, name: 'read_file', content: text(40 + Math.floor(rand() * 400)) },
    { role: 'assistant', content: text(20 + Math.floor(rand() * 80)), reasoning_content: rand() < 0.3 ? text(30) : undefined },
  ];
}
function messages(n: number): Message[] {
  const out: Message[] = [];
  while (out.length < n) out.push(...turn());
  return out.slice(0, n);
}

/** The reference's joined payload (what the incremental count must equal). */
function payload(history: readonly Message[]): string {
  const parts: string[] = [];
  for (const m of history) {
    if (typeof m.content === 'string') parts.push(m.content);
    if (m.tool_calls && m.tool_calls.length > 0) parts.push(pythonJsonDumps(m.tool_calls));
    for (const key of ['reasoning_content', 'name', 'tool_call_id'] as const) {
      const v = m[key];
      if (typeof v === 'string' && v) parts.push(v);
    }
  }
  return parts.join('\n');
}
const tiktoken = new Tiktoken(cl100k);
/** The reference's way: js-tiktoken encodes the whole payload. */
const referenceCount = (history: readonly Message[]): number => tiktoken.encode(payload(history), [], []).length + 4 * history.length;
/** Our piece-cached counter over the whole payload (proven equal to encode by property tests). */
const fullCount = (history: readonly Message[]): number => (countTokens(payload(history)) ?? NaN) + 4 * history.length;

function time<T>(fn: () => T): [T, number] {
  const t = performance.now();
  const value = fn();
  return [value, performance.now() - t];
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number): string => `${x.toFixed(2)} ms`;

// Retained heap (run in a child process with --expose-gc, see the end): a 10,000-message
// history built from the recorded sessions, estimated as a governor does (whole prompt, then each
// message). "Per message" is what the caches keep for the history's messages (it goes when they
// go); the shared per-piece and join-window caches are bounded and reported apart.
const jsonSize = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

function measureMemory(): void {
  const gc = (globalThis as { gc?: () => void }).gc!;
  // Collect until the heap stops shrinking: one full GC can leave garbage that the next frees.
  const heapUsed = (): number => {
    let used = Infinity;
    for (let i = 0; i < 10; i++) {
      gc();
      const now = process.memoryUsage().heapUsed;
      if (now >= used - 4096) return now;
      used = now;
    }
    return used;
  };
  const dir = join(process.env.NANOBOT_FIXTURES_DIR ?? resolve(pkgDir, '..', '..', 'fixtures'), 'transcripts');
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort() : [];
  if (files.length === 0) {
    console.log(JSON.stringify({ skipped: `no recorded sessions in ${dir}` }));
    return;
  }
  const n = 10_000;
  const history: Message[] = [];
  while (history.length < n) for (const f of files) history.push(...(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Message[]));
  history.length = n;
  // In a helper so that no interpreter register of this frame still holds the big JSON text.
  const jsonBytes = jsonSize(history) / n;
  countTokens('load the ranks before measuring');
  const before = heapUsed();
  estimatePromptTokens(history);
  for (const m of history) estimateMessageTokens(m);
  const after = heapUsed();
  clearTokenCaches();
  const cleared = heapUsed();
  console.log(JSON.stringify({ n, jsonBytes, perMessage: (cleared - before) / n, sharedMb: (after - cleared) / 1048576, kept: history.length }));
}

if (process.argv.includes('--memory')) {
  measureMemory();
  process.exit(0);
}

let ok = true;
const [, loadMs] = time(() => countTokens('load the ranks'));
console.log(`ranks load (first count): ${ms(loadMs)}`);

// Warm up the JIT on a separate small history, then empty the shared caches: "cold" below
// means nothing about the big history (or its text pieces) is cached.
let small = messages(300);
for (let i = 0; i < 20; i++) {
  small = [...small, ...messages(10)];
  estimatePromptTokens(small);
}
clearTokenCaches();

const history = messages(10_000);
const [cold, coldMs] = time(() => estimatePromptTokens(history));
const [reference, referenceMs] = time(() => referenceCount(history));
console.log(`cold  estimatePromptTokens(10,000 messages): ${ms(coldMs)} = ${cold} tokens`);
console.log(`      reference way, js-tiktoken encode of the joined payload: ${ms(referenceMs)} = ${reference} tokens ${cold === reference ? '(identical)' : '(MISMATCH)'}`);
if (cold !== reference) ok = false;

const warmTimes: number[] = [];
let grown = history;
const ROUNDS = 9;
for (let round = 1; round <= ROUNDS; round++) {
  grown = [...grown, ...messages(10)];
  const [warm, warmMs] = time(() => estimatePromptTokens(grown));
  warmTimes.push(warmMs);
  const full = round === ROUNDS ? referenceCount(grown) : fullCount(grown);
  if (warm !== full) ok = false;
  console.log(`warm  +10 messages, round ${round} (${grown.length} messages): ${ms(warmMs)} = ${warm} tokens; full encode ${full} ${warm === full ? '(identical)' : '(MISMATCH)'}`);
}
const warmMedian = median(warmTimes);
console.log(`ratio cold / warm (median of ${ROUNDS}): ${(coldMs / warmMedian).toFixed(0)}x (target >= 100x)`);
console.log(`ratio reference full encode / warm: ${(referenceMs / warmMedian).toFixed(0)}x`);

// Import time: a fresh node process importing the built package (dist), ranks not loaded.
const distIndex = join(pkgDir, 'dist', 'index.js');
const newestSource = Math.max(...readdirSync(join(pkgDir, 'src')).map((f) => statSync(join(pkgDir, 'src', f)).mtimeMs));
if (!existsSync(distIndex) || statSync(distIndex).mtimeMs < newestSource) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', join(pkgDir, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('build failed');
}
const script = `const t = performance.now(); const m = await import(${JSON.stringify(distIndex)}); const dt = performance.now() - t; console.log(JSON.stringify({ ms: dt, ranksLoaded: m.tokenizerLoaded() }));`;
const importTimes: number[] = [];
for (let i = 0; i < 7; i++) {
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  const row = JSON.parse(res.stdout.trim()) as { ms: number; ranksLoaded: boolean };
  if (row.ranksLoaded) ok = false;
  importTimes.push(row.ms);
}
console.log(`import @nanobot/schema (fresh node, dist): median ${ms(median(importTimes))}, min ${ms(Math.min(...importTimes))} of 7 (target < 50 ms); ranks loaded at import: no`);
const memRun = spawnSync(process.execPath, ['--expose-gc', '--conditions=source', '--import', 'tsx', import.meta.filename, '--memory'], { encoding: 'utf8' });
const mem = JSON.parse(memRun.stdout.trim().split('\n').pop() ?? '{}') as { skipped?: string; n: number; jsonBytes: number; perMessage: number; sharedMb: number };
if (mem.skipped !== undefined) {
  console.log(`memory: skipped (${mem.skipped})`);
} else {
  console.log(
    `memory (${mem.n.toLocaleString('en')} recorded messages, ${mem.jsonBytes.toFixed(0)} B of JSON each on average; prompt + per-message estimates): ` +
      `caches retain ${mem.perMessage.toFixed(0)} B per message (${((mem.perMessage * 100_000) / 1048576).toFixed(0)} MB at 100k messages) ` +
      `+ ${mem.sharedMb.toFixed(1)} MB in the bounded shared piece/join caches`,
  );
}
console.log(ok ? 'OK: warm numbers equal a full encode; ranks load lazily' : 'FAILED: see MISMATCH / ranks above');
process.exitCode = ok ? 0 : 1;
