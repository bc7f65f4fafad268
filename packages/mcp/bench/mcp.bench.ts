// Overhead of an MCP tool call made through McpToolSource + ToolRegistry (name lookup, argument
// coercion, cast, JSON Schema validation, result mapping) over the same call made directly with
// the SDK client. Both talk to their own process of the same stdio fixture server; rounds
// alternate so machine noise hits both sides alike. Prints ratios and absolute figures; asserts
// nothing. Run: node scripts/bench.mjs mcp
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolRegistry } from '@nanobot/registry';
import { createToolContext } from '@nanobot/tools-core';
import { McpToolSource } from '../src/index.js';
import { stdioFixture } from '../test/fixtures/fixture.js';

const ROUNDS = 30;
const CALLS_PER_ROUND = 200;
const WARMUP = 3000;
const ARGS = { text: 'hello world', times: 2 };

const direct = new Client({ name: 'bench', version: '0' });
const fixture = stdioFixture();
await direct.connect(new StdioClientTransport({ ...fixture, stderr: 'ignore' }));

const registry = new ToolRegistry();
const source = new McpToolSource({ servers: { fx: fixture }, registry });
const report = await source.start();
if (report.failed.length > 0) throw report.failed[0].error;
const ctx = createToolContext();

// Client-process CPU time per side: steadier than wall time on a shared machine, and it is where
// the wrapper's cost lives (the server and the pipe are the same for both).
const cpu = { sdk: 0, registry: 0 };
function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

async function viaSdk(n: number): Promise<number> {
  const cpuStart = cpuMs();
  const started = performance.now();
  for (let i = 0; i < n; i += 1) {
    const result = await direct.callTool({ name: 'echo', arguments: ARGS });
    if (result.isError) throw new Error('direct call failed');
  }
  cpu.sdk += cpuMs() - cpuStart;
  return performance.now() - started;
}

async function viaRegistry(n: number): Promise<number> {
  const cpuStart = cpuMs();
  const started = performance.now();
  for (let i = 0; i < n; i += 1) {
    const execution = await registry.execute('mcp_fx_echo', ARGS, ctx);
    if (execution.isError) throw new Error(`registry call failed: ${JSON.stringify(execution.result.content)}`);
  }
  cpu.registry += cpuMs() - cpuStart;
  return performance.now() - started;
}

await viaSdk(WARMUP);
await viaRegistry(WARMUP);
cpu.sdk = 0;
cpu.registry = 0;

let sdkMs = 0;
let registryMs = 0;
const ratios: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  let sdk: number;
  let reg: number;
  if (round % 2 === 0) {
    sdk = await viaSdk(CALLS_PER_ROUND);
    reg = await viaRegistry(CALLS_PER_ROUND);
  } else {
    reg = await viaRegistry(CALLS_PER_ROUND);
    sdk = await viaSdk(CALLS_PER_ROUND);
  }
  sdkMs += sdk;
  registryMs += reg;
  ratios.push(reg / sdk);
}
ratios.sort((a, b) => a - b);
const median = ratios[Math.floor(ratios.length / 2)];

// Local work only (prepare + map), no round trip: what the wrapper adds per call on the CPU.
const prepStarted = performance.now();
for (let i = 0; i < ROUNDS * CALLS_PER_ROUND; i += 1) registry.prepareCall('mcp_fx_echo', ARGS);
const prepMs = performance.now() - prepStarted;

const calls = ROUNDS * CALLS_PER_ROUND;
const us = (ms: number) => ((ms / calls) * 1000).toFixed(1);
console.log(`calls per side: ${calls} (echo over stdio, ${ROUNDS} alternating rounds)`);
console.log(`direct SDK client.callTool:        ${us(sdkMs)} µs/call wall, ${us(cpu.sdk)} µs/call client CPU`);
console.log(`McpToolSource via registry.execute: ${us(registryMs)} µs/call wall, ${us(cpu.registry)} µs/call client CPU`);
console.log(`  of which registry.prepareCall:    ${us(prepMs)} µs/call`);
console.log(`overhead (wall): ${us(registryMs - sdkMs)} µs/call, ratio registry/direct = ${(registryMs / sdkMs).toFixed(3)}`);
console.log(
  `overhead (client CPU): ${us(cpu.registry - cpu.sdk)} µs/call, ratio registry/direct = ${(cpu.registry / cpu.sdk).toFixed(3)}`,
);
console.log(
  `per-round ratio: median ${median.toFixed(3)}, range ${ratios[0].toFixed(3)}–${ratios[ratios.length - 1].toFixed(3)} ` +
    '(round trips over pipes dominate; on a busy machine single rounds swing either way)',
);

await source.close();
await direct.close();
