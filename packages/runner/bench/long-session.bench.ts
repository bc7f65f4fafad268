// The runner's governing cost per request on a long session over its budget (issue 31): a run on
// a 10,000- and a 100,000-message transcript (a 128k window: every request is cut, the cut plan
// carried), the model asking for one tool call per iteration, timed from the end of an
// iteration's tool step (the `injections` callback, the last thing before the next request) to
// the `beforeModel` hook (right after the request was governed): the replay of the stored failure rows and the
// governing of the next request. Two paths in this one run: `ownedHistories: false` (before
// issue 31: every request replays the whole transcript with `replayFailures` and governs it as
// an array) and the default (the run's replayed transcript as a Governor-owned history, appended
// to). Also the first request of a session's next run, given the previous transcript's rows plus
// a user message: a resumed history against a full replay. Prints medians and ratios; asserts
// nothing about time.
// Run: node scripts/bench.mjs runner/bench/long-session
import { loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { LLMProvider, LLMRequest, LLMResponse, LLMStreamEvent, Message } from '@nanobot/schema';
import { LEGACY_FAILURE_TEXTS, toolFailureRow, turnFailureRow } from '@nanobot/schema';
import { ToolRegistry } from '@nanobot/registry';
import { defineTool } from '@nanobot/tools-core';
import { AgentRunner, type AgentRunResult } from '@nanobot/runner';
import { syntheticHistory } from '@nanobot-internal/test-support';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms: number): string => `${ms.toFixed(3)} ms`;

/** A model that answers from a list at no cost: one tool call per iteration, then an answer. */
class InstantModel implements LLMProvider {
  readonly name = 'instant';
  readonly defaultModel = 'instant';
  #i = 0;
  constructor(
    private readonly calls: number,
    private readonly tag: string,
  ) {}
  #next(): LLMResponse {
    const i = this.#i++;
    const usage = { inputTokens: 0, outputTokens: 0 };
    if (i >= this.calls) return { content: 'done', toolCalls: [], finishReason: 'stop', usage };
    return { content: '', toolCalls: [{ id: `${this.tag}_${i}`, name: 'exec', arguments: { n: i } }], finishReason: 'tool_calls', usage };
  }
  async chat(_request: LLMRequest): Promise<LLMResponse> {
    return this.#next();
  }
  async *stream(_request: LLMRequest): AsyncIterable<LLMStreamEvent> {
    yield { type: 'done', response: this.#next() };
  }
}

/** A stored session of about `n` messages with failure rows of both generations (about 1 in 100 rows). */
function storedSession(n: number): Message[] {
  const generated: Message[] = syntheticHistory(n, 31 + n);
  // Ends where a stored session ends: before a user message (no tool loop left open).
  const rows = generated.slice(0, generated.findLastIndex((m) => m.role === 'user'));
  for (let i = 50; i < rows.length; i += 97) {
    const m = rows[i];
    if (m.role === 'tool') rows[i] = i % 2 === 0 ? toolFailureRow({ id: m.tool_call_id as string, name: m.name as string }) : { ...m, content: LEGACY_FAILURE_TEXTS.toolInterrupted };
    else if (m.role === 'assistant' && !m.tool_calls) rows[i] = i % 2 === 0 ? turnFailureRow('model_error', 'HTTP 500') : { role: 'assistant', content: LEGACY_FAILURE_TEXTS.modelError[0] };
  }
  return rows;
}

const tools = new ToolRegistry();
tools.register(defineTool({ name: 'exec', description: 'runs a command', parameters: { type: 'object', properties: { n: { type: 'integer' } } }, execute: (args: { n?: number }) => `output ${args.n}: ${'the file result config '.repeat(20)}` }));

interface Figures {
  /** Median governing cost of a request after the warm-up. */
  perRequest: number;
  /** The run's first request (the transcript replayed and handed to the Governor). */
  first: number;
  /** The first request of the session's next runs (the previous transcript's rows plus a user message; median). */
  nextRunFirst: number;
}

/** Next runs of the session timed (median). */
const NEXT_RUNS = 7;

/** Requests governed before the timed ones (a new Governor's first calls plan the cut and fill its memos). */
const WARM_UP = 15;

async function scenario(n: number, timed: number, ownedHistories: boolean): Promise<Figures> {
  collect();
  const runner = new AgentRunner({ ownedHistories });
  const stored = storedSession(n);
  let mark = 0;
  const samples: number[] = [];
  const spec = (initialMessages: Message[], calls: number, tag: string) => ({
    sessionKey: 'long',
    initialMessages,
    provider: new InstantModel(calls, tag),
    tools,
    contextWindowTokens: 128_000,
    maxTokens: 4_096,
    maxIterations: calls + 2,
    tracer: false as const,
    // The last thing an iteration does before the next request (see the file comment).
    injections: () => {
      mark = performance.now();
      return [];
    },
    // Called right after the request was governed (no `onGoverned`: its observer is handed a copy
    // of the whole transcript, a cost of its own, below).
    hooks: { beforeModel: () => void samples.push(performance.now() - mark) },
  });
  mark = performance.now();
  const first: AgentRunResult = await runner.run(spec([...stored, { role: 'user', content: 'go on' }], WARM_UP + timed, 'a'));
  const firstMs = samples[0];
  const steady = samples.slice(1 + WARM_UP, 1 + WARM_UP + timed);
  // The session's next runs, one request each (an answer), each on the previous run's rows.
  const next: number[] = [];
  let previous = first;
  for (let run = 0; run < NEXT_RUNS; run++) {
    samples.length = 0;
    mark = performance.now();
    previous = await runner.run(spec([...previous.messages, { role: 'user', content: `and then ${run}?` }], 0, `b${run}`));
    next.push(samples[0]);
  }
  return { perRequest: median(steady), first: firstMs, nextRunFirst: median(next) };
}

console.log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (2 shared cores: figures vary with it)`);
const results = new Map<string, Figures>();
for (const n of [10_000, 100_000]) {
  const timed = n === 10_000 ? 60 : 30;
  results.set(`array ${n}`, await scenario(n, timed, false));
  results.set(`owned ${n}`, await scenario(n, timed, true));
}
const get = (path: string, n: number): Figures => results.get(`${path} ${n}`)!;
console.log('runner: governing one request of a run on a long session over a 128k window (replay + govern, median after the warm-up):');
for (const n of [10_000, 100_000]) {
  const before = get('array', n);
  const after = get('owned', n);
  console.log(`  ${n.toLocaleString('en-US').padStart(7)} messages: before (replayed array) ${fmt(before.perRequest)}, after (owned history) ${fmt(after.perRequest)}, after / before = ${(after.perRequest / before.perRequest).toFixed(2)}x`);
}
const growth = (path: string): string => (get(path, 100_000).perRequest / get(path, 10_000).perRequest).toFixed(2);
console.log(`  growth 100k / 10k: before ${growth('array')}x, after ${growth('owned')}x (goal < 2)`);
console.log("the run's first request (the whole transcript replayed and handed over; for information):");
for (const n of [10_000, 100_000]) console.log(`  ${n.toLocaleString('en-US').padStart(7)} messages: before ${fmt(get('array', n).first)}, after ${fmt(get('owned', n).first)}`);
console.log(`the first request of the session's next run (the previous transcript's rows plus a user message; median of ${NEXT_RUNS} runs):`);
for (const n of [10_000, 100_000]) {
  const before = get('array', n).nextRunFirst;
  const after = get('owned', n).nextRunFirst;
  console.log(`  ${n.toLocaleString('en-US').padStart(7)} messages: before ${fmt(before)}, after (history resumed) ${fmt(after)}, after / before = ${(after / before).toFixed(2)}x`);
}
