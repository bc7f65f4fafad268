/** A tool's name in either the OpenAI (`function.name`) or Anthropic (`name`) shape; `""` if none. */
export function toolName(tool: unknown): string {
  if (typeof tool !== 'object' || tool === null) return '';
  const record = tool as { function?: { name?: unknown }; name?: unknown };
  if (typeof record.function === 'object' && record.function !== null) {
    return typeof record.function.name === 'string' ? record.function.name : '';
  }
  return typeof record.name === 'string' ? record.name : '';
}

/**
 * Where prompt-cache markers go in a tool list: after the last built-in (non-`mcp_`) tool, so
 * the stable built-ins stay cached when MCP servers come and go, and after the last tool.
 */
export function toolCacheMarkerIndices(tools: readonly unknown[]): number[] {
  if (tools.length === 0) return [];
  let lastBuiltin = -1;
  for (let i = 0; i < tools.length; i++) if (!toolName(tools[i]).startsWith('mcp_')) lastBuiltin = i;
  const last = tools.length - 1;
  return lastBuiltin >= 0 && lastBuiltin !== last ? [lastBuiltin, last] : [last];
}
