// prepareCall + execute overhead on a no-op tool with a 5-parameter schema, against calling the
// function directly; and definitions() on 200 tools, cached vs rebuilt. Prints absolute figures
// and ratios from one run; asserts nothing about time.
import { createToolContext, defineTool, type ToolContext } from '@nanobot/tools-core';
import { ToolRegistry } from '../src/index.js';

const parameters = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1 },
    offset: { type: 'integer', minimum: 1 },
    limit: { type: ['integer', 'null'], minimum: 1, maximum: 2000 },
    mode: { type: 'string', enum: ['fast', 'full'] },
    verbose: { type: 'boolean' },
  },
  required: ['path'],
  additionalProperties: false,
};
const noop = (_args: Record<string, unknown>, _ctx: ToolContext) => 'ok';
const registry = new ToolRegistry({ defaultTimeoutMs: 0 });
registry.register(defineTool({ name: 'noop', description: 'does nothing', parameters, execute: noop }));
const asyncNoop = async (_args: Record<string, unknown>, _ctx: ToolContext) => 'ok';
const registryWithTimeout = new ToolRegistry();
registryWithTimeout.register(defineTool({ name: 'noop', description: 'does nothing', parameters, execute: asyncNoop }));
const ctx = createToolContext();
const args = { path: 'a.txt', offset: 3, limit: null, mode: 'fast', verbose: true };
const argsText = JSON.stringify({ ...args, offset: '3', verbose: 'true' });

async function time(label: string, iterations: number, fn: () => unknown): Promise<number> {
  for (let i = 0; i < Math.min(2000, iterations / 10); i++) await fn();
  const start = performance.now();
  for (let i = 0; i < iterations; i++) await fn();
  const perCallUs = ((performance.now() - start) * 1000) / iterations;
  console.log(`${label.padEnd(58)} ${perCallUs.toFixed(2).padStart(9)} µs/call`);
  return perCallUs;
}

const N = 100_000;
const direct = await time('direct call of the function', N, () => noop(args, ctx));
const prep = await time('registry.prepareCall (object args)', N, () => registry.prepareCall('noop', args));
const exec = await time('registry.execute (object args, sync tool)', N, () => registry.execute('noop', args, ctx));
const directAsync = await time('direct call of an async function', N, () => asyncNoop(args, ctx));
const execTimer = await time('registry.execute (async tool, default 300 s timeout armed)', N, () =>
  registryWithTimeout.execute('noop', args, ctx),
);
const execText = await time('registry.execute (JSON text args with casts)', N, () => registry.execute('noop', argsText, ctx));
console.log(`overhead of execute over a direct call: ${(exec - direct).toFixed(2)} µs/call (target < 20 µs); ratio ${(exec / direct).toFixed(1)}x`);
console.log(`async tool with its timeout armed: ${(execTimer - directAsync).toFixed(2)} µs/call over a direct await; JSON text args: ${(execText - direct).toFixed(2)} µs/call`);
console.log(`prepareCall alone: ${prep.toFixed(2)} µs/call`);

const big = new ToolRegistry();
for (let i = 0; i < 200; i++) {
  const name = i % 4 === 0 ? `mcp_server_tool_${i}` : `tool_${String(199 - i).padStart(3, '0')}`;
  big.register(defineTool({ name, description: `Tool number ${i}`, parameters, execute: noop }));
}
const M = 20_000;
const cached = await time('definitions() on 200 tools, cached', M, () => big.definitions());
const uncached = await time('definitions() on 200 tools, rebuilt each call', M / 10, () => {
  big.invalidateDefinitions();
  return big.definitions();
});
console.log(`definitions(): rebuilt/cached = ${(uncached / cached).toFixed(0)}x`);
