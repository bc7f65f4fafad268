// What the inspector costs per request: `govern` alone vs `govern` + `inspectRequest` (the
// server runs both on every model call). Prints absolute figures and the ratio of one run.
// Run: node scripts/bench.mjs inspect-request
import { govern } from '@nanobot/governor';
import type { Message, ToolDefinition } from '@nanobot/schema';
import { preparedSessionMessages } from '../src/server/demo-fixtures.js';
import { inspectRequest } from '../src/server/inspect-request.js';

const tools: ToolDefinition[] = ['read_file', 'grep', 'list_dir'].map((name) => ({
  type: 'function',
  function: { name, description: `The ${name} tool.`, parameters: { type: 'object', properties: { path: { type: 'string' } } } },
}));

function time(label: string, rounds: number, fn: () => void): number {
  for (let i = 0; i < Math.min(20, rounds); i++) fn();
  const start = performance.now();
  for (let i = 0; i < rounds; i++) fn();
  const per = (performance.now() - start) / rounds;
  console.log(`  ${label.padEnd(34)} ${(per * 1000).toFixed(1).padStart(9)} µs/request`);
  return per;
}

for (const turns of [24, 200]) {
  const transcript: Message[] = [{ role: 'system', content: 'You are a test.' }, ...preparedSessionMessages(turns), { role: 'user', content: 'status?' }];
  for (const window of [0, 8192]) {
    const options = { tools, contextWindowTokens: window || undefined, maxOutputTokens: 1024, inflightStartIndex: transcript.length };
    console.log(`${transcript.length} messages, ${window ? `window ${window} (snipping)` : 'no window'}:`);
    const rounds = turns > 100 ? 200 : 1000;
    const plain = time('govern', rounds, () => void govern(transcript, options));
    const inspected = time('govern + inspectRequest', rounds, () => {
      const result = govern(transcript, options);
      inspectRequest({ sessionKey: 's', iteration: 0, transcript, governed: result.messages, report: result.report, tools, inflightStartIndex: transcript.length, sections: null });
    });
    console.log(`  ratio (with inspector / without): ${(inspected / plain).toFixed(2)}x`);
  }
}
