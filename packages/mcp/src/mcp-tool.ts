import type { JsonSchema } from '@nanobot/schema';
import { Tool, toolResult, type ToolContext, type ToolResult } from '@nanobot/tools-core';
import type { McpListedTool, McpServerConnection } from './mcp-server-connection.js';

/**
 * One MCP server tool as a nanobot tool. Its parameters are the server's `inputSchema`, so the
 * registry casts and validates arguments against it before anything is sent; `execute` forwards
 * the call with the context's abort signal and the server's per-call timeout.
 */
export class McpTool extends Tool<Record<string, unknown>> {
  override readonly name: string;
  override readonly description: string;
  override readonly parameters: JsonSchema;
  /** MCP tools may have side effects whatever their annotations claim (hints are untrusted), as in the reference. */
  override readonly readOnly = false;
  /**
   * From the server's `readOnlyHint: true` annotation: a read-only tool's result can be had again
   * by calling it, so the governor may compact it under pressure. A lying hint costs at most a
   * repeated call; it is not trusted for `readOnly`, which would batch the tool with others.
   */
  override readonly compactable: boolean;
  /**
   * No registry-level limit: the source bounds each phase itself (connect, then the per-call
   * timeout) and says which one expired, instead of a generic "did not finish".
   */
  override readonly timeoutMs = 0;
  /** Server name as configured. */
  readonly server: string;
  /** The tool's name on its server (before prefixing and sanitising). */
  readonly toolName: string;
  readonly #connection: McpServerConnection;
  readonly #callTimeoutMs: number;

  constructor(name: string, listed: McpListedTool, connection: McpServerConnection, callTimeoutMs: number) {
    super();
    this.name = name;
    this.description = listed.description ?? listed.title ?? listed.name;
    this.parameters = listed.inputSchema;
    this.compactable = listed.annotations?.readOnlyHint === true;
    this.server = connection.name;
    this.toolName = listed.name;
    this.#connection = connection;
    this.#callTimeoutMs = callTimeoutMs;
  }

  /** Calls the tool on its server. Never throws: failures are error results (see `McpServerConnection.callTool`). */
  override async execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const output = await this.#connection.callTool(this.toolName, args, {
      signal: ctx.signal,
      timeoutMs: this.#callTimeoutMs,
    });
    return toolResult.of(output.content, output.isError);
  }
}
