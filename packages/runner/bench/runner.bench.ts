// Runner overhead per iteration (model excluded) and parallel read-only tool batches.
// Run: node scripts/bench.mjs runner   (prints figures and ratios measured in this one run)
import type { LLMProvider, LLMRequest, LLMResponse, LLMStreamEvent, Message } from '@nanobot/schema';
import { ToolRegistry } from '@nanobot/registry';
import { defineTool } from '@nanobot/tools-core';
import { AgentRunner } from '@nanobot/runner';

/** A "model" that costs nothing: it answers from a precomputed list, so only the runner is timed. */
class InstantModel implements LLMProvider {
  readonly name = 'instant';
  readonly defaultModel = 'instant';
  #i = 0;
  constructor(private readonly responses: LLMResponse[]) {}
  reset(): void {
    this.#i = 0;
  }
  async chat(_request: LLMRequest): Promise<LLMResponse> {
    return this.responses[this.#i++];
  }
  async *stream(_request: LLMRequest): AsyncIterable<LLMStreamEvent> {
    yield { type: 'done', response: this.responses[this.#i++] };
  }
}

function history(n: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a benchmark agent. '.repeat(40) }];
  for (let i = 0; out.length < n - 1; i += 1) {
    out.push({ role: 'user', content: `question ${i}: ${'lorem ipsum dolor sit amet '.repeat(8)}` });
    out.push({ role: 'assistant', content: '', tool_calls: [{ id: `h${i}`, type: 'function', function: { name: 'tool_0', arguments: '{"path": "a.txt"}' } }] });
    out.push({ role: 'tool', tool_call_id: `h${i}`, name: 'tool_0', content: 'file contents '.repeat(20) });
    out.push({ role: 'assistant', content: `answer ${i}` });
  }
  out.push({ role: 'user', content: 'go' });
  return out.slice(0, n);
}

function registryOf(n: number): ToolRegistry {
  const registry = new ToolRegistry();
  for (let i = 0; i < n; i += 1) {
    registry.register(
      defineTool({
        name: `tool_${i}`,
        description: `Benchmark tool number ${i}`,
        parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } }, required: ['path'] },
        readOnly: true,
        execute: () => 'ok',
      }),
    );
  }
  return registry;
}

async function overheadPerIteration(iterations: number, contextWindowTokens: number | undefined): Promise<number> {
  const responses: LLMResponse[] = [];
  for (let i = 0; i < iterations; i += 1) {
    responses.push({ content: '', toolCalls: [{ id: `b${i}`, name: `tool_${i % 20}`, arguments: { path: 'a.txt' } }], finishReason: 'tool_calls', usage: { inputTokens: 0, outputTokens: 0 } });
  }
  responses.push({ content: 'done', toolCalls: [], finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } });
  const model = new InstantModel(responses);
  const tools = registryOf(20);
  const initial = history(100);
  const runner = new AgentRunner();
  const run = () => runner.run({ initialMessages: initial, provider: model, tools, maxIterations: iterations + 1, concurrentTools: true, ...(contextWindowTokens ? { contextWindowTokens } : {}) });
  for (let w = 0; w < 3; w += 1) {
    model.reset();
    await run();
  }
  const samples: number[] = [];
  for (let s = 0; s < 7; s += 1) {
    model.reset();
    const t0 = performance.now();
    await run();
    samples.push((performance.now() - t0) / (iterations + 1));
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

async function parallelBatch(concurrent: boolean): Promise<number> {
  const registry = new ToolRegistry();
  for (let i = 0; i < 8; i += 1) {
    registry.register(defineTool({ name: `slow_${i}`, description: 'sleeps 100 ms', parameters: { type: 'object', properties: {} }, readOnly: true, execute: () => new Promise((r) => setTimeout(() => r('done'), 100)) }));
  }
  const model = new InstantModel([
    { content: '', toolCalls: Array.from({ length: 8 }, (_, i) => ({ id: `p${i}`, name: `slow_${i}`, arguments: {} })), finishReason: 'tool_calls', usage: { inputTokens: 0, outputTokens: 0 } },
    { content: 'done', toolCalls: [], finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } },
  ]);
  const t0 = performance.now();
  await new AgentRunner().run({ initialMessages: [{ role: 'user', content: 'go' }], provider: model, tools: registry, concurrentTools: concurrent });
  return performance.now() - t0;
}

const plain = await overheadPerIteration(50, undefined);
const windowed = await overheadPerIteration(50, 128_000);
console.log('runner overhead per iteration (100-message context, 20 tools, model excluded, median of 7 runs × 51 iterations):');
console.log(`  governor without a window : ${plain.toFixed(3)} ms/iteration  (target < 1 ms: ${plain < 1 ? 'met' : 'NOT met'})`);
console.log(`  governor with 128k window : ${windowed.toFixed(3)} ms/iteration  (target < 1 ms: ${windowed < 1 ? 'met' : 'NOT met'})`);
const parallel = await parallelBatch(true);
const serial = await parallelBatch(false);
console.log('8 read-only tools of 100 ms each in one model turn:');
console.log(`  concurrentTools on : ${parallel.toFixed(1)} ms  (ideal ~100 ms; ratio to ideal ${(parallel / 100).toFixed(2)}x)`);
console.log(`  concurrentTools off: ${serial.toFixed(1)} ms  (speed-up from batching ${(serial / parallel).toFixed(1)}x)`);
