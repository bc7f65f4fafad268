import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '@nanobot/registry';
import { estimateMessageTokens, type Message } from '@nanobot/schema';
import { McpToolSource } from './mcp-tool-source.js';

const SERVER = fileURLToPath(new URL('../test/fixtures/structured-server.mjs', import.meta.url));

let source: McpToolSource | null = null;
afterEach(async () => {
  await source?.close();
  source = null;
});

function tokens(content: string): number {
  const message: Message = { role: 'tool', tool_call_id: 'c', name: 't', content };
  return estimateMessageTokens(message);
}

describe('structuredContent from a real McpServer (official SDK, stdio)', () => {
  it('the model reads the data once when the text mirrors the structure, and the JSON when it does not', async () => {
    const registry = new ToolRegistry();
    source = new McpToolSource({ servers: { kg: { command: process.execPath, args: [SERVER] } }, registry });
    const report = await source.start();
    expect(report.failed).toEqual([]);
    const read = async (name: string, args: object) => {
      const run = await registry.execute(`mcp_kg_${name}`, args);
      expect(run.status).toBe('ok');
      return String(run.result.content);
    };

    const graph = await read('read_graph', {});
    const entities = JSON.parse(graph) as { name: string }[];
    expect(entities).toHaveLength(12);
    expect(graph).not.toContain('"entities"');

    const listing = await read('list_directory', { path: '.' });
    expect(listing.split('\n')).toHaveLength(40);
    expect(listing).not.toContain('{"content"');

    const counted = await read('count_files', {});
    expect(counted).toBe('Counted 32 files.\n{"files":32,"dirs":8}');

    // What the old rule (JSON added unless a block is exactly that JSON) would have sent.
    const doubledGraph = `${graph}\n${JSON.stringify({ entities })}`;
    const doubledListing = `${listing}\n${JSON.stringify({ content: listing })}`;
    const saved = tokens(doubledGraph) - tokens(graph) + tokens(doubledListing) - tokens(listing);
    expect(saved).toBeGreaterThan(0);
    console.log(
      `structuredContent dedup: read_graph ${tokens(doubledGraph)} → ${tokens(graph)} tokens, list_directory ${tokens(doubledListing)} → ${tokens(listing)} tokens (${saved} saved)`,
    );
  }, 60_000);
});
