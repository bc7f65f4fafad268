import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkLegality } from '@nanobot/governor';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import { defineTool } from '@nanobot/tools-core';
import { AgentRunner } from './agent-runner.js';

describe('tool execution order (property)', () => {
  it('results follow call order; a non-safe call never overlaps another call', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ safe: fc.boolean(), delay: fc.integer({ min: 0, max: 3 }), fails: fc.boolean() }), { minLength: 1, maxLength: 8 }),
        async (specs) => {
          const registry = new ToolRegistry();
          let running = 0;
          const overlaps: string[] = [];
          specs.forEach((s, i) => {
            registry.register(
              defineTool({
                name: `t${i}`,
                description: 't',
                parameters: { type: 'object', properties: {} },
                readOnly: s.safe,
                execute: async () => {
                  running += 1;
                  if (!s.safe && running > 1) overlaps.push(`t${i}`);
                  await new Promise((r) => setTimeout(r, s.delay));
                  if (!s.safe && running > 1) overlaps.push(`t${i}`);
                  running -= 1;
                  if (s.fails) throw new Error(`t${i} failed`);
                  return `r${i}`;
                },
              }),
            );
          });
          const provider = new ScriptedProvider([{ toolCalls: specs.map((_, i) => ({ id: `c${i}`, name: `t${i}`, arguments: {} })) }, 'done']);
          const result = await new AgentRunner().run({ initialMessages: [{ role: 'user', content: 'go' }], provider, tools: registry, concurrentTools: true });
          const toolMessages = result.messages.filter((m) => m.role === 'tool');
          expect(toolMessages.map((m) => m.tool_call_id)).toEqual(specs.map((_, i) => `c${i}`));
          toolMessages.forEach((m, i) => expect(String(m.content).startsWith(specs[i].fails ? `Error executing t${i}` : `r${i}`)).toBe(true));
          expect(overlaps).toEqual([]);
          expect(checkLegality(result.messages)).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
