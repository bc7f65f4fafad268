// Long-running loop: 100,000 runner iterations (10-iteration turns, 20 tools, a fresh
// ScriptedProvider per turn as a worker has one provider per request stream) with the heap
// measured after full garbage collections at intervals. Prints the growth per iteration fitted
// over the second half (after warm-up: caches filled, code optimised). Needs --expose-gc: the
// benchmark re-runs itself with it. SOAK_ITERATIONS overrides the count (for a quick look).
// Run: node scripts/bench.mjs soak   (asserts nothing; prints figures measured in this run)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Message } from '@nanobot/schema';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import { defineTool } from '@nanobot/tools-core';
import { AgentRunner } from '@nanobot/runner';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  const res = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  process.exit(res.status ?? 1);
}
const fullGc = gc!;

const ITERATIONS = Number(process.env.SOAK_ITERATIONS ?? 100_000);
const PER_TURN = 10;
const SAMPLES = 40;
/** What we call "about zero": a worker doing 1M iterations a day would grow < 1 MB a day. */
const FLAT_BYTES_PER_ITERATION = 1;

function registryOf(n: number): ToolRegistry {
  const registry = new ToolRegistry();
  for (let i = 0; i < n; i += 1) {
    registry.register(defineTool({
      name: `tool_${i}`,
      description: `Benchmark tool number ${i}`,
      parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } }, required: ['path'] },
      readOnly: true,
      // Every result is new text (paths differ per call), as real tool output is.
      execute: (args: { path: string }) => `contents of ${args.path}: ${args.path.length} bytes`,
    }));
  }
  return registry;
}

function history(turn: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a benchmark agent. '.repeat(40) }];
  for (let i = 0; out.length < 99; i += 1) {
    out.push({ role: 'user', content: `question ${i}: ${'lorem ipsum dolor sit amet '.repeat(8)}` });
    out.push({ role: 'assistant', content: '', tool_calls: [{ id: `h${i}`, type: 'function', function: { name: 'tool_0', arguments: '{"path": "a.txt"}' } }] });
    out.push({ role: 'tool', tool_call_id: `h${i}`, name: 'tool_0', content: 'file contents '.repeat(20) });
    out.push({ role: 'assistant', content: `answer ${i}` });
  }
  out.push({ role: 'user', content: `go on with session ${turn}` });
  return out;
}

const tools = registryOf(20);
const runner = new AgentRunner();
let turn = 0;
async function oneTurn(): Promise<void> {
  const t = turn++;
  const provider = new ScriptedProvider((_request, k) => (k < PER_TURN - 1
    ? { toolCalls: [{ id: `c${t}_${k}`, name: `tool_${(t + k) % 20}`, arguments: { path: `src/file_${t}_${k}.ts` } }], finishReason: 'tool_calls' }
    : { content: `done with turn ${t}`, finishReason: 'stop' }));
  await runner.run({ initialMessages: history(t), provider, tools, maxIterations: PER_TURN + 1, concurrentTools: true, contextWindowTokens: 128_000 });
}

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) fullGc();
  return process.memoryUsage().heapUsed;
}

/** Least-squares slope and intercept of y over x. */
function fit(xs: number[], ys: number[]): { slope: number; intercept: number } {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

const turns = Math.ceil(ITERATIONS / PER_TURN);
const every = Math.max(1, Math.floor(turns / SAMPLES));
const xs: number[] = [];
const ys: number[] = [];
const t0 = performance.now();
xs.push(0);
ys.push(heapAfterGc());
for (let done = 0; done < turns;) {
  for (let k = 0; k < every && done < turns; k++, done++) await oneTurn();
  xs.push(done * PER_TURN);
  ys.push(heapAfterGc());
}
const seconds = (performance.now() - t0) / 1000;
const half = Math.floor(xs.length / 2);
const { slope, intercept } = fit(xs.slice(half), ys.slice(half));
const warmup = fit(xs.slice(0, half + 1), ys.slice(0, half + 1)).slope;
const residual = Math.max(...xs.slice(half).map((x, i) => Math.abs(ys[half + i] - (intercept + slope * x))));
const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(2)} MB`;
console.log(`soak: ${turns * PER_TURN} runner iterations (${turns} turns of ${PER_TURN}, 20 tools) in ${seconds.toFixed(0)} s, heap after full GC every ${every * PER_TURN} iterations`);
console.log(`  heap after GC: start ${mb(ys[0])}, at half ${mb(ys[half])}, end ${mb(ys[ys.length - 1])}`);
console.log(`  second half: least-squares growth ${slope.toFixed(2)} B/iteration (${(slope * PER_TURN / (PER_TURN - 1)).toFixed(2)} B per tool call), largest residual from the fit ${(residual / 1024).toFixed(0)} KB`);
console.log(`  first half (bounded caches filling: per-piece and join-window counts, weak tables): ${warmup.toFixed(2)} B/iteration`);
console.log(`  flat (second half grows < ${FLAT_BYTES_PER_ITERATION} B/iteration): ${slope < FLAT_BYTES_PER_ITERATION ? 'yes' : 'NO'}`);
if (process.env.SOAK_SERIES) console.log(xs.map((x, i) => `${x}\t${ys[i]}`).join('\n'));
