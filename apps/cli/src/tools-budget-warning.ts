import type { TokenEstimator, ToolDefinition } from '@nanobot/schema';

/** The built-in tool groups the config file can turn off (`"tools": { "<group>": false }`). */
const GROUPS: Readonly<Record<'exec' | 'web', readonly string[]>> = {
  exec: ['exec', 'write_stdin', 'list_exec_sessions'],
  web: ['web_fetch', 'web_search'],
};

/** What {@link toolsBudgetWarning} needs to know. */
export interface ToolsBudgetInput {
  tools: readonly ToolDefinition[];
  /** Counts as the governor does (the model's tokenizer). */
  estimator: TokenEstimator;
  /** The input budget in the estimator's tokens (0: none, no warning). */
  budget: number;
  /** The MCP server a tool came from (undefined: a built-in). Must not throw. */
  mcpServerOf: (toolName: string) => string | undefined;
  /** The config file the fixes go into (as the user should read it). */
  configPath: string;
}

const n = (v: number): string => v.toLocaleString('en-US');

/**
 * Set when the tool definitions alone take more than a quarter of the input budget (they go with
 * every request and are never snipped): what they cost, where the cost comes from (built-ins by
 * group, each MCP server), and the fix that applies to each — `"tools": { "exec": false }` in the
 * config file for built-in groups, `"enabledTools"` in that server's `mcpServers` entry for MCP
 * tools — or a larger window. Null otherwise. Pure.
 */
export function toolsBudgetWarning(input: ToolsBudgetInput): string | null {
  const { tools, estimator, budget } = input;
  if (budget <= 0 || tools.length === 0) return null;
  const total = estimator.toolsTokens(tools);
  if (total <= budget / 4) return null;
  const builtins: ToolDefinition[] = [];
  const servers = new Map<string, ToolDefinition[]>();
  for (const tool of tools) {
    const server = input.mcpServerOf(tool.function.name);
    if (server === undefined) builtins.push(tool);
    else servers.set(server, [...(servers.get(server) ?? []), tool]);
  }
  const parts: string[] = [];
  const fixes: string[] = [];
  if (builtins.length > 0) {
    const tokens = estimator.toolsTokens(builtins);
    parts.push(`${builtins.length} built-in: ${n(tokens)}`);
    const groups = (Object.keys(GROUPS) as (keyof typeof GROUPS)[])
      .map((group) => ({ group, defs: builtins.filter((t) => GROUPS[group].includes(t.function.name)) }))
      .filter((g) => g.defs.length > 0)
      .map((g) => `"${g.group}": false (${n(estimator.toolsTokens(g.defs))} tokens)`);
    if (groups.length > 0) fixes.push(`turn off built-in tools you do not use with "tools": { ${groups.join(', ')} } in ${input.configPath}`);
  }
  const heavy = [...servers].map(([server, defs]) => ({ server, defs, tokens: estimator.toolsTokens(defs) })).sort((a, b) => b.tokens - a.tokens);
  for (const { server, defs, tokens } of heavy) parts.push(`${defs.length} from MCP server "${server}": ${n(tokens)}`);
  if (heavy.length > 0) {
    const names = heavy.map((h) => `"${h.server}"`).join(', ');
    fixes.push(`list only the MCP tools you need with "enabledTools" in ${heavy.length === 1 ? 'the entry' : 'the entries'} ${names} of "mcpServers" in ${input.configPath}`);
  }
  fixes.push('or raise --context-window');
  const share = Math.round((total / budget) * 100);
  // One source: say it in the subject; several: how much each takes.
  const what =
    parts.length > 1
      ? `the ${tools.length} tool definitions take ${n(total)} tokens (${parts.join('; ')})`
      : builtins.length > 0
        ? `the ${tools.length} built-in tool definitions take ${n(total)} tokens`
        : `the ${tools.length} tool definitions of MCP server "${heavy[0].server}" take ${n(total)} tokens`;
  return `${what}, ${share}% of the ${n(budget)}-token budget, on every request; ${fixes.join('; ')}`;
}
