import { compareCodePoints } from '@nanobot/schema';
import { mcpToolName } from './mcp-tool-name.js';

/** A server tool and where it comes from. */
export interface McpToolRef {
  server: string;
  tool: string;
}

/** Registry names for a set of server tools, and the collisions met on the way. */
export interface McpToolNamePlan {
  /** One entry per registry name, sorted by name. */
  assigned: (McpToolRef & { name: string })[];
  /** Tools left out because an earlier (server, tool) got the same name; sorted by name, then dropped ref. */
  collisions: { name: string; kept: McpToolRef; dropped: McpToolRef }[];
}

/**
 * Names every (server, tool) pair `mcpToolName(server, tool)` and settles collisions: the lowest
 * pair in code-point order (server first, then tool) keeps the name. The plan depends only on the
 * set of pairs, never on their order, so servers answering in any order produce the same tools.
 * Exact duplicates (a server listing one tool twice) count once. Pure.
 */
export function planMcpToolNames(candidates: readonly McpToolRef[]): McpToolNamePlan {
  const sorted = [...candidates].sort(
    (a, b) => compareCodePoints(a.server, b.server) || compareCodePoints(a.tool, b.tool),
  );
  const byName = new Map<string, McpToolRef>();
  const collisions: McpToolNamePlan['collisions'] = [];
  let previous: McpToolRef | undefined;
  for (const candidate of sorted) {
    if (previous && previous.server === candidate.server && previous.tool === candidate.tool) continue;
    previous = candidate;
    const ref = { server: candidate.server, tool: candidate.tool };
    const name = mcpToolName(ref.server, ref.tool);
    const kept = byName.get(name);
    if (kept) collisions.push({ name, kept, dropped: ref });
    else byName.set(name, ref);
  }
  const assigned = [...byName.entries()]
    .map(([name, ref]) => ({ name, ...ref }))
    .sort((a, b) => compareCodePoints(a.name, b.name));
  collisions.sort(
    (a, b) =>
      compareCodePoints(a.name, b.name) ||
      compareCodePoints(a.dropped.server, b.dropped.server) ||
      compareCodePoints(a.dropped.tool, b.dropped.tool),
  );
  return { assigned, collisions };
}
