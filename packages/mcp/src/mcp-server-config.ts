import { z } from 'zod';
import { ConfigurationError } from '@nanobot/schema';

/** Fields shared by both transports (names as in nanobot's `tools.mcpServers` config). */
const commonFields = {
  /** Per-call timeout in seconds (nanobot's `toolTimeout`, default 30). */
  toolTimeout: z.number().positive().max(86_400).default(30),
  /** Raw MCP tool names to expose; `["*"]` (default) exposes all. Wrapped names (`mcp_<server>_<tool>`) also match. */
  enabledTools: z.array(z.string().min(1)).default(['*']),
  /** `false` keeps the entry in the file but never connects. */
  enabled: z.boolean().default(true),
};

/** A server started as a child process and spoken to over stdin/stdout. */
export const mcpStdioServerConfigSchema = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1, 'command must not be empty'),
    args: z.array(z.string()).default([]),
    /** Added to a minimal inherited environment (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().min(1).optional(),
    ...commonFields,
  })
  .strict();

/** A server reached over MCP streamable HTTP. */
export const mcpHttpServerConfigSchema = z
  .object({
    type: z.enum(['streamableHttp', 'http']).optional(),
    url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }),
    headers: z.record(z.string(), z.string()).default({}),
    ...commonFields,
  })
  .strict();

/**
 * One server entry: `{ command, args, env, cwd }` (stdio) or `{ url, headers }` (streamable HTTP).
 * The transport is chosen by which of `command` / `url` is present; both or neither is an error.
 */
export const mcpServerConfigSchema = z.unknown().transform((value, ctx): McpServerConfig => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: 'a server entry must be an object with "command" or "url"' });
    return z.NEVER;
  }
  // An already-parsed entry (with `transport`) parses again to itself.
  const { transport: _transport, ...entry } = value as Record<string, unknown>;
  const hasCommand = 'command' in entry;
  const hasUrl = 'url' in entry;
  if (hasCommand === hasUrl) {
    ctx.addIssue({
      code: 'custom',
      message: hasCommand
        ? 'a server entry has either "command" (stdio) or "url" (streamable HTTP), not both'
        : 'a server entry needs "command" (stdio) or "url" (streamable HTTP)',
    });
    return z.NEVER;
  }
  if (entry.type === 'sse') {
    ctx.addIssue({ code: 'custom', path: ['type'], message: 'the legacy SSE transport is not supported; use streamable HTTP' });
    return z.NEVER;
  }
  const schema = hasCommand ? mcpStdioServerConfigSchema : mcpHttpServerConfigSchema;
  const parsed = schema.safeParse(entry);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  }
  return hasCommand
    ? { transport: 'stdio', ...(parsed.data as McpStdioConfigData) }
    : { transport: 'http', ...(parsed.data as McpHttpConfigData) };
});

/** Servers by name, e.g. the `mcpServers` object of the CLI config file. Names must be non-empty. */
export const mcpServersConfigSchema = z.record(z.string(), mcpServerConfigSchema).superRefine((servers, ctx) => {
  // Checked here rather than on the key schema: zod reports key failures only as "Invalid key".
  if (Object.hasOwn(servers, '')) ctx.addIssue({ code: 'custom', message: 'server names must not be empty' });
});

type McpStdioConfigData = z.output<typeof mcpStdioServerConfigSchema>;
type McpHttpConfigData = z.output<typeof mcpHttpServerConfigSchema>;

/** A parsed stdio server entry (defaults filled in). */
export type McpStdioServerConfig = { transport: 'stdio' } & McpStdioConfigData;
/** A parsed streamable-HTTP server entry (defaults filled in). */
export type McpHttpServerConfig = { transport: 'http' } & McpHttpConfigData;
/** A parsed server entry. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;
/** Parsed servers by name. */
export type McpServersConfig = Record<string, McpServerConfig>;
/** What a user writes for one server (before defaults). */
export type McpServerConfigInput = z.input<typeof mcpStdioServerConfigSchema> | z.input<typeof mcpHttpServerConfigSchema>;

/**
 * Parses the servers object of a config file; throws `ConfigurationError` naming every bad field
 * (`mcpServers.git.command: …`) so a typo is reported instead of a server silently missing.
 */
export function parseMcpServersConfig(value: unknown, path = 'mcpServers'): McpServersConfig {
  const parsed = mcpServersConfigSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    const where = [path, ...issue.path.map(String)].join('.');
    return `${where}: ${issue.message}`;
  });
  throw new ConfigurationError(`Invalid MCP server configuration:\n${lines.join('\n')}`, { cause: parsed.error });
}
