// Resources and prompts of a real MCP server from npm (@modelcontextprotocol/server-everything,
// over stdio) as read-only tools, named and ordered like the reference's wrappers.
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '@nanobot/registry';
import { createToolContext, defineTool } from '@nanobot/tools-core';
import { McpToolSource } from './mcp-tool-source.js';
import { McpPromptTool, McpResourceTool } from './mcp-capability-tools.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const server = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [everything, 'stdio'], ...extra });

const sources: McpToolSource[] = [];
afterEach(async () => {
  for (const s of sources.splice(0)) await s.close();
});

async function start(config: Record<string, unknown> = {}) {
  const registry = new ToolRegistry();
  registry.register(defineTool({ name: 'read_file', description: 'r', execute: () => 'ok' }));
  const source = new McpToolSource({ registry, servers: { ev: server(config) } });
  sources.push(source);
  const report = await source.start();
  expect(report.connected).toEqual(['ev']);
  return { registry, source };
}

const ctx = () => createToolContext({ workspace: process.cwd() });

describe('MCP resources and prompts as tools (server-everything)', () => {
  it('registers each resource and prompt as a read-only tool after the built-ins, in the stable order', async () => {
    const { registry, source } = await start();
    const names = registry.definitions().map((d) => d.function.name);
    expect(names[0]).toBe('read_file');
    expect(names.slice(1)).toEqual([...names.slice(1)].sort());
    const resources = names.filter((n) => n.startsWith('mcp_ev_resource_'));
    const prompts = names.filter((n) => n.startsWith('mcp_ev_prompt_'));
    expect(resources).toContain('mcp_ev_resource_architecture_md');
    expect(prompts).toEqual(['mcp_ev_prompt_args-prompt', 'mcp_ev_prompt_completable-prompt', 'mcp_ev_prompt_resource-prompt', 'mcp_ev_prompt_simple-prompt']);
    const resource = source.get('mcp_ev_resource_architecture_md');
    expect(resource).toBeInstanceOf(McpResourceTool);
    expect(resource?.readOnly).toBe(true);
    expect(resource?.description).toBe('[MCP Resource] Static document file exposed from /docs: architecture.md\nURI: demo://resource/static/document/architecture.md');
    const args = registry.definitions().find((d) => d.function.name === 'mcp_ev_prompt_args-prompt')!;
    expect(args.function.parameters).toEqual({ type: 'object', properties: { city: { type: 'string', description: 'Name of the city' }, state: { type: 'string' } }, required: ['city'] });
    expect(args.function.description).toBe('[MCP Prompt] A prompt with two arguments, one required and one optional\nReturns a filled prompt template that can be used as a workflow guide.');
    expect(source.get('mcp_ev_prompt_args-prompt')).toBeInstanceOf(McpPromptTool);
  }, 60_000);

  it('traits come from the server\'s annotations: readOnlyHint makes a tool compactable (never readOnly); resources are compactable', async () => {
    const { registry } = await start();
    const traits = registry.toolTraits();
    // server-everything annotates `echo` and `get-sum` readOnlyHint: true, `toggle-simulated-logging` false.
    expect(traits['mcp_ev_echo']).toEqual({ readOnly: false, compactable: true, rereadable: null });
    expect(traits['mcp_ev_get-sum']).toMatchObject({ compactable: true, readOnly: false });
    expect(traits['mcp_ev_toggle-simulated-logging']).toEqual({ readOnly: false, compactable: false, rereadable: null });
    expect(traits['mcp_ev_resource_architecture_md']).toEqual({ readOnly: true, compactable: true, rereadable: null });
    expect(traits['mcp_ev_prompt_simple-prompt']).toEqual({ readOnly: true, compactable: false, rereadable: null });
    // The built-in registered here as `read_file` declared nothing, and gets nothing for its name.
    expect(traits['read_file']).toEqual({ readOnly: false, compactable: false, rereadable: null });
  }, 60_000);

  it('reading a resource returns its text; a prompt returns the filled template', async () => {
    const { registry } = await start();
    const doc = await registry.execute('mcp_ev_resource_architecture_md', {}, ctx(), { toolCallId: 'r1' });
    expect(doc.isError).toBe(false);
    expect(String(doc.result.content)).toMatch(/^# Everything Server/);
    const filled = await registry.execute('mcp_ev_prompt_args-prompt', { city: 'Oslo', state: 'Viken' }, ctx(), { toolCallId: 'p1' });
    expect(filled.isError).toBe(false);
    expect(String(filled.result.content)).toContain('Oslo');
    const simple = await registry.execute('mcp_ev_prompt_simple-prompt', {}, ctx(), { toolCallId: 'p2' });
    expect(simple.result.content).toBe('This is a simple prompt without arguments.');
  }, 60_000);

  it('the schema is enforced before the server sees the call; a server-side refusal is an error result', async () => {
    const { registry, source } = await start();
    const missing = await registry.execute('mcp_ev_prompt_args-prompt', {}, ctx(), { toolCallId: 'p3' });
    expect(missing.isError).toBe(true);
    expect(String(missing.result.content)).toMatch(/city/);
    const direct = await source.get('mcp_ev_prompt_args-prompt')!.execute({}, ctx());
    expect(direct.isError).toBe(true);
    expect(String(direct.content)).toMatch(/^\(MCP prompt call failed: .*\[code -32602\]\)$/);
  }, 60_000);

  it('with an enabledTools subset only tools are registered (as the reference)', async () => {
    const { registry } = await start({ enabledTools: ['echo'] });
    expect(registry.definitions().map((d) => d.function.name)).toEqual(['read_file', 'mcp_ev_echo']);
  }, 60_000);
});
