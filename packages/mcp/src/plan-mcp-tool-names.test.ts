import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planMcpToolNames, type McpToolRef } from './plan-mcp-tool-names.js';
import { TOOL_NAME_PATTERN, mcpToolName } from './mcp-tool-name.js';
import { compareCodePoints } from '@nanobot/schema';

const refs = (pairs: [string, string][]): McpToolRef[] => pairs.map(([server, tool]) => ({ server, tool }));

describe('planMcpToolNames', () => {
  it('keeps the lowest (server, tool) pair and reports the others', () => {
    const plan = planMcpToolNames(
      Object.freeze(refs([['my_srv', 'x'], ['my.srv', 'x'], ['my srv', 'y'], ['a', 'b.c'], ['a', 'b c'], ['a', 'b.c']])),
    );
    expect(plan.assigned).toEqual([
      { name: 'mcp_a_b_c', server: 'a', tool: 'b c' },
      { name: 'mcp_my_srv_x', server: 'my.srv', tool: 'x' },
      { name: 'mcp_my_srv_y', server: 'my srv', tool: 'y' },
    ]);
    expect(plan.collisions).toEqual([
      { name: 'mcp_a_b_c', kept: { server: 'a', tool: 'b c' }, dropped: { server: 'a', tool: 'b.c' } },
      { name: 'mcp_my_srv_x', kept: { server: 'my.srv', tool: 'x' }, dropped: { server: 'my_srv', tool: 'x' } },
    ]);
  });

  // Names built from a tiny alphabet so collisions are frequent.
  const part = fc.string({ unit: fc.constantFrom('a', 'b', '_', '.', ' ', '-', 'é'), maxLength: 4 });
  const candidates = fc.array(fc.record({ server: part, tool: part }), { maxLength: 25 });

  it('does not depend on the order the servers answered in (property)', () => {
    fc.assert(
      fc.property(
        candidates.chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }))),
        ([list, shuffled]) => {
          expect(planMcpToolNames(shuffled)).toEqual(planMcpToolNames(list));
        },
      ),
    );
  });

  it('gives every distinct pair exactly one fate, with valid unique names and the minimum kept (property)', () => {
    fc.assert(
      fc.property(candidates, (list) => {
        const plan = planMcpToolNames(list);
        const names = plan.assigned.map((a) => a.name);
        expect(new Set(names).size).toBe(names.length);
        for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
        const distinct = new Set(list.map((r) => JSON.stringify([r.server, r.tool])));
        expect(plan.assigned.length + plan.collisions.length).toBe(distinct.size);
        for (const collision of plan.collisions) {
          const kept = plan.assigned.find((a) => a.name === collision.name)!;
          expect({ server: kept.server, tool: kept.tool }).toEqual(collision.kept);
          expect(mcpToolName(collision.dropped.server, collision.dropped.tool)).toBe(collision.name);
          const order =
            compareCodePoints(kept.server, collision.dropped.server) || compareCodePoints(kept.tool, collision.dropped.tool);
          expect(order).toBeLessThan(0);
        }
      }),
    );
  });
});
