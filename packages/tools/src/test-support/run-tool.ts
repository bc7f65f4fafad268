import { isToolResult, type Tool, type ToolContext } from '@nanobot/tools-core';

/** A tool call's outcome as tests inspect it: text, error flag, or the thrown error. */
export interface CallOutcome {
  readonly text: string;
  readonly isError: boolean;
  readonly thrown?: unknown;
}

/** Runs a tool the way a registry would after validation: `execute(args, ctx)`, capturing throws. */
export async function call(tool: Tool<any>, args: Record<string, unknown>, ctx: ToolContext): Promise<CallOutcome> {
  try {
    const value = await tool.execute(args, ctx);
    if (isToolResult(value)) {
      return { text: typeof value.content === 'string' ? value.content : JSON.stringify(value.content), isError: value.isError };
    }
    return { text: String(value), isError: false };
  } catch (thrown) {
    return { text: thrown instanceof Error ? thrown.message : String(thrown), isError: true, thrown };
  }
}
