export { McpToolSource } from './mcp-tool-source.js';
export type {
  McpToolSourceOptions,
  McpRegistryTarget,
  McpSourceEvent,
  McpStartReport,
  McpToolInfo,
  McpServerStatus,
} from './mcp-tool-source.js';
export { planMcpToolNames } from './plan-mcp-tool-names.js';
export type { McpToolRef, McpToolNamePlan } from './plan-mcp-tool-names.js';
export { McpServerConnection } from './mcp-server-connection.js';
export type {
  McpConnectionState,
  McpConnectionEvent,
  McpListedTool,
  McpReconnectOptions,
  McpServerConnectionOptions,
  McpCallOptions,
} from './mcp-server-connection.js';
export { McpTool } from './mcp-tool.js';
export { McpResourceTool, McpPromptTool } from './mcp-capability-tools.js';
export {
  mcpServerConfigSchema,
  mcpServersConfigSchema,
  mcpStdioServerConfigSchema,
  mcpHttpServerConfigSchema,
  parseMcpServersConfig,
} from './mcp-server-config.js';
export type {
  McpServerConfig,
  McpServersConfig,
  McpStdioServerConfig,
  McpHttpServerConfig,
  McpServerConfigInput,
} from './mcp-server-config.js';
export { mcpToolName, sanitizeNamePart, TOOL_NAME_PATTERN } from './mcp-tool-name.js';
export { mapCallToolResult, textMirrorsStructure } from './map-call-tool-result.js';
export type { McpCallToolResultLike, McpToolOutput } from './map-call-tool-result.js';
export { McpConnectionError, McpClosedError } from './mcp-errors.js';
