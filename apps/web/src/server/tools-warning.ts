import type { TokenEstimator, ToolDefinition } from '@nanobot/schema';

/** What {@link toolsWarning} needs to know. */
export interface ToolsWarningInput {
  tools: readonly ToolDefinition[];
  /** Counts as the governor does (the model's tokenizer). */
  estimator: TokenEstimator;
  /** The input budget in the estimator's tokens (0: none, no warning). */
  budget: number;
  /** Switches that leave built-in tool groups out (`--no-exec`: exec, write_stdin, …). */
  switches: readonly { flag: string; tools: readonly string[] }[];
  /** The MCP server a tool came from (undefined: a built-in). Must not throw. */
  mcpServerOf: (toolName: string) => string | undefined;
}

const n = (v: number): string => v.toLocaleString('en-US');

/**
 * Set when the tool definitions alone take more than a quarter of the budget (they go with every
 * request and are never snipped): how much, where it comes from (the built-in tools, each MCP
 * server) and the fix that applies to each — a switch that leaves a built-in group out,
 * `"enabledTools"` in an MCP server's config — or a larger window. Null otherwise. Pure.
 */
export function toolsWarning(input: ToolsWarningInput): string | null {
  const { tools, estimator, budget } = input;
  if (budget <= 0 || tools.length === 0) return null;
  const total = estimator.toolsTokens(tools);
  if (total <= budget / 4) return null;
  const builtins = tools.filter((t) => input.mcpServerOf(t.function.name) === undefined);
  const servers = new Map<string, ToolDefinition[]>();
  for (const t of tools) {
    const server = input.mcpServerOf(t.function.name);
    if (server !== undefined) servers.set(server, [...(servers.get(server) ?? []), t]);
  }
  const sources: string[] = [];
  const fixes: string[] = [];
  if (builtins.length > 0) {
    sources.push(`${builtins.length} built-in: ${n(estimator.toolsTokens(builtins))}`);
    const groups = input.switches
      .map((s) => ({ flag: s.flag, defs: builtins.filter((t) => s.tools.includes(t.function.name)) }))
      .filter((g) => g.defs.length > 0)
      .map((g) => `${g.flag} (${g.defs.map((d) => d.function.name).join(', ')}: ${n(estimator.toolsTokens(g.defs))} tokens)`);
    if (groups.length > 0) fixes.push(`start the demo without the built-in tools you do not need: ${groups.join(', ')}`);
  }
  for (const [server, defs] of servers) sources.push(`${defs.length} from MCP server "${server}": ${n(estimator.toolsTokens(defs))}`);
  if (servers.size > 0) fixes.push(`list only the MCP tools you need with "enabledTools" in ${[...servers.keys()].map((s) => `"${s}"`).join(', ')}'s server config`);
  fixes.push('give it a larger context window (--context-window)');
  const share = Math.round((total / budget) * 100);
  // One source: say it in the subject; several: how much each takes.
  const what =
    sources.length > 1
      ? `The ${tools.length} tool definitions take ${n(total)} tokens (${sources.join('; ')})`
      : builtins.length > 0
        ? `The ${tools.length} built-in tool definitions take ${n(total)} tokens`
        : `The ${tools.length} tool definitions of MCP server "${[...servers.keys()][0]}" take ${n(total)} tokens`;
  return `${what}, ${share}% of the ${n(budget)}-token budget, on every request: they are sent every time and never cut. To free room, ${fixes.join(', or ')}.`;
}
