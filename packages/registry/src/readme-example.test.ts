// Keeps the README examples honest: the same code, run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createToolContext, defineTool } from '@nanobot/tools-core';
import { ToolLoader, ToolRegistry } from './index.js';

it('README: a registry used without the runner', async () => {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'add',
      description: 'Add two integers',
      readOnly: true,
      parameters: z.object({ a: z.number().int(), b: z.number().int() }),
      execute: ({ a, b }) => String(a + b),
    }),
  );
  const tools = registry.definitions();
  expect(tools.map((t) => t.function.name)).toEqual(['add']);
  const ctx = createToolContext({ channel: 'telegram', chatId: '42' });
  const ok = await registry.execute('add', '{"a": 2, "b": "3"}', ctx, { toolCallId: 'call_1' });
  expect([ok.result.content, ok.isError]).toEqual(['5', false]);
  const typo = await registry.execute('Add', { a: 1, b: 2 }, ctx);
  expect(typo.result.content).toBe(
    "Error: Tool 'Add' not found. Did you mean 'add'? Tool names must match exactly. Available: add\n\n[Analyze the error above and try a different approach.]",
  );
});

it('README: a plugin package is found through its package.json field', async () => {
  const root = mkdtempSync(join(tmpdir(), 'nanobot-readme-'));
  try {
    const dir = join(root, 'node_modules', 'nanobot-plugin-weather');
    mkdirSync(join(dir, 'dist'), { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'nanobot-plugin-weather', type: 'module', nanobot: { tools: './dist/tools.js' } }),
    );
    // A hand-written tool object of the Tool shape (a real plugin would use defineTool).
    writeFileSync(
      join(dir, 'dist', 'tools.js'),
      `const schema = { type: 'object', properties: {} };
       export const weather = {
         name: 'weather', description: 'Weather', parameters: schema, jsonSchema: schema, scopes: ['core'],
         readOnly: true, exclusive: false, concurrencySafe: true,
         castParams: (p) => p, validateParams: () => [], parseArgs: (p) => ({ ok: true, value: p }),
         toSchema() { return { type: 'function', function: { name: 'weather', description: 'Weather', parameters: schema } }; },
         execute: () => 'sunny',
       };`,
    );
    const builtins = { clock: defineTool({ name: 'clock', description: 'time', execute: () => 'noon' }) };
    const warnings: string[] = [];
    const loader = new ToolLoader({ builtins: [builtins], pluginRoots: [join(root, 'node_modules')], warn: (m) => warnings.push(m) });
    const registry = new ToolRegistry();
    const report = await loader.load(registry, { scope: 'core', context: { workspace: root } });
    expect(report).toEqual({ registered: ['clock', 'weather'], skipped: [], failed: [] });
    expect((await registry.execute('weather', {})).result.content).toBe('sunny');
    expect(warnings).toEqual([]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
