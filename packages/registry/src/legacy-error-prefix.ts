import { toolResult, type Tool, type ToolContext, type ToolOutput } from '@nanobot/tools-core';

/**
 * Wraps a plugin tool so that a plain string result starting with `Error:` counts as an error, as
 * the reference does for entry-point plugins (older plugins signal failure only by that prefix).
 * Everything else is delegated to the wrapped tool (methods are called on it, so its own private
 * state keeps working). Built-in tools are never wrapped: for them text is never sniffed.
 */
export function withLegacyErrorPrefix<A>(tool: Tool<A>): Tool<A> {
  return Object.create(tool, {
    execute: {
      value: async (args: A, ctx: ToolContext): Promise<ToolOutput> => {
        const out = await tool.execute(args, ctx);
        return typeof out === 'string' && out.startsWith('Error:') ? toolResult.error(out) : out;
      },
    },
    castParams: { value: (params: Record<string, unknown>) => tool.castParams(params) },
    validateParams: { value: (params: Record<string, unknown>) => tool.validateParams(params) },
    parseArgs: { value: (params: Record<string, unknown>) => tool.parseArgs(params) },
    toSchema: { value: () => tool.toSchema() },
    jsonSchema: { get: () => tool.jsonSchema },
    concurrencySafe: { get: () => tool.concurrencySafe },
  }) as Tool<A>;
}
