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

const ROUNDS = 20;
const CALLS_PER_ROUND = 250;
const WARMUP = 500;
const ARGS = { text: 'hello world', times: 2 };

const direct = new Client({ name: 'bench', version: '0' });
const fixture = stdioFixture();
await direct.connect(new StdioClientTransport({ ...fixture, stderr: 'ignore' }));

const registry = new ToolRegistry();
const source = new McpToolSource({ servers: { fx: fixture }, registry });
const report = await source.start();
if (report.failed.length > 0) throw report.failed[0].error;
const ctx = createToolContext();

async function viaSdk(n: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i += 1) {
    const result = await direct.callTool({ name: 'echo', arguments: ARGS });
    if (result.isError) throw new Error('direct call failed');
  }
  return performance.now() - started;
}

async function viaRegistry(n: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i += 1) {
    const execution = await registry.execute('mcp_fx_echo', ARGS, ctx);
    if (execution.isError) throw new Error(`registry call failed: ${JSON.stringify(execution.result.content)}`);
  }
  return performance.now() - started;
}

await viaSdk(WARMUP);
await viaRegistry(WARMUP);

let sdkMs = 0;
let registryMs = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  if (round % 2 === 0) {
    sdkMs += await viaSdk(CALLS_PER_ROUND);
    registryMs += await viaRegistry(CALLS_PER_ROUND);
  } else {
    registryMs += await viaRegistry(CALLS_PER_ROUND);
    sdkMs += await viaSdk(CALLS_PER_ROUND);
  }
}

// Local work only (prepare + map), no round trip: what the wrapper adds per call on the CPU.
const prepStarted = performance.now();
for (let i = 0; i < ROUNDS * CALLS_PER_ROUND; i += 1) registry.prepareCall('mcp_fx_echo', ARGS);
const prepMs = performance.now() - prepStarted;

const calls = ROUNDS * CALLS_PER_ROUND;
const us = (ms: number) => ((ms / calls) * 1000).toFixed(1);
console.log(`calls per side: ${calls} (echo over stdio, ${ROUNDS} alternating rounds)`);
console.log(`direct SDK client.callTool:        ${us(sdkMs)} µs/call`);
console.log(`McpToolSource via registry.execute: ${us(registryMs)} µs/call`);
console.log(`  of which registry.prepareCall:    ${us(prepMs)} µs/call`);
console.log(`overhead: +${us(registryMs - sdkMs)} µs/call, ratio registry/direct = ${(registryMs / sdkMs).toFixed(3)}`);

await source.close();
await direct.close();
