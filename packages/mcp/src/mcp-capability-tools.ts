import type { JsonSchema } from '@nanobot/schema';
import { Tool, toolResult, type ToolContext, type ToolResult } from '@nanobot/tools-core';
import type { McpListedTool, McpServerConnection } from './mcp-server-connection.js';

/** What the resource and prompt wrappers share: read-only, named and described as listed. */
abstract class McpReadOnlyTool extends Tool<Record<string, unknown>> {
  override readonly name: string;
  override readonly description: string;
  override readonly parameters: JsonSchema;
  override readonly readOnly = true;
  /** The connection bounds each read itself (see `McpServerConnection`). */
  override readonly timeoutMs = 0;
  readonly server: string;
  readonly toolName: string;
  protected readonly connection: McpServerConnection;
  protected readonly callTimeoutMs: number;

  constructor(name: string, listed: McpListedTool, connection: McpServerConnection, timeoutMs: number) {
    super();
    this.name = name;
    this.description = listed.description ?? listed.name;
    this.parameters = listed.inputSchema;
    this.server = connection.name;
    this.toolName = listed.name;
    this.connection = connection;
    this.callTimeoutMs = timeoutMs;
  }
}

/**
 * An MCP server resource as a read-only nanobot tool (`mcp_<server>_resource_<name>`, no
 * parameters): calling it reads the resource's URI (see `McpServerConnection.readResource`).
 */
export class McpResourceTool extends McpReadOnlyTool {
  /** The resource's URI. */
  readonly uri: string;
  /** Reading the resource again gives its content back: the governor may compact an old read. */
  override readonly compactable = true;

  constructor(name: string, listed: McpListedTool, connection: McpServerConnection, timeoutMs: number) {
    super(name, listed, connection, timeoutMs);
    this.uri = listed.uri ?? '';
  }

  /** Reads the resource. Never throws: failures are error results. */
  override async execute(_args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const output = await this.connection.readResource(this.uri, { signal: ctx.signal, timeoutMs: this.callTimeoutMs });
    return toolResult.of(output.content, output.isError);
  }
}

/**
 * An MCP server prompt as a read-only nanobot tool (`mcp_<server>_prompt_<name>`, the prompt's
 * arguments as string parameters, validated by the registry): calling it returns the filled
 * template's text (see `McpServerConnection.getPrompt`).
 */
export class McpPromptTool extends McpReadOnlyTool {
  /** The prompt's name on its server. */
  readonly promptName: string;

  constructor(name: string, listed: McpListedTool, connection: McpServerConnection, timeoutMs: number) {
    super(name, listed, connection, timeoutMs);
    this.promptName = listed.promptName ?? listed.name;
  }

  /** Fills the prompt. Never throws: failures are error results. */
  override async execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const strings = Object.fromEntries(Object.entries(args ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    const output = await this.connection.getPrompt(this.promptName, strings, { signal: ctx.signal, timeoutMs: this.callTimeoutMs });
    return toolResult.of(output.content, output.isError);
  }
}
