import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { McpServersConfig } from '@nanobot/mcp';
import { CliError } from './cli-error.js';

/** Where the config file sits inside a workspace. */
export const CONFIG_FILE_PATH = join('.nanobot', 'config.json');

/**
 * The config file's schema. Strict: a misspelt key is an error naming it, never silently ignored.
 * `mcpServers` is checked by @nanobot/mcp's own schema (loaded only when the section is present).
 */
export const cliConfigSchema = z
  .object({
    /** A registry name (`nanobot providers`), `openai-responses`, `offline`, or a provider added under `providers`; checked when resolved. */
    provider: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    baseUrl: z.url({ protocol: /^https?$/, error: 'baseUrl must be an http(s) URL' }).optional(),
    apiKey: z.string().min(1).optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().positive().optional(),
    contextWindowTokens: z.number().int().min(1024).optional(),
    maxIterations: z.number().int().positive().max(1000).optional(),
    maxToolResultChars: z.number().int().optional(),
    sessionsDir: z.string().min(1).optional(),
    databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, 'databaseUrl must be a postgres:// URL').optional(),
    databaseLeaseMs: z.number().int().min(1000).optional(),
    restrictToWorkspace: z.boolean().optional(),
    tools: z.object({ exec: z.boolean().optional(), web: z.boolean().optional() }).strict().optional(),
    mcpServers: z.record(z.string(), z.unknown()).optional(),
    /** The reference's `providers` section (`{ <name>: { apiKey, apiBase, extraHeaders, … } }`), checked by @nanobot/providers. */
    providers: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** A validated config file (`mcpServers` parsed with @nanobot/mcp's schema). */
export type CliConfig = Omit<z.output<typeof cliConfigSchema>, 'mcpServers'> & { mcpServers?: McpServersConfig };

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/**
 * Reads and validates a config file. A missing file is `{}` unless it was named explicitly
 * (`explicit`: a flag or env var pointed at it). Throws `CliError('CLI_CONFIG')` with one line
 * naming the file and the problem: unreadable, not JSON (with the parser's position), or a field
 * that fails the schema (`tools.exek: unrecognized key`). Never writes anything.
 */
export async function loadCliConfig(path: string, explicit: boolean): Promise<CliConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT') && !explicit) return {};
    const reason = isErrno(error, 'ENOENT') ? 'no such file' : isErrno(error, 'EISDIR') ? 'it is a directory' : (error as Error).message;
    throw new CliError('CLI_CONFIG', `cannot read config file ${path}: ${reason}`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new CliError('CLI_CONFIG', `config file ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = cliConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => {
      const where = issue.path.map(String).join('.') || '(top level)';
      const keys = 'keys' in issue && Array.isArray(issue.keys) ? ` ${issue.keys.join(', ')}` : '';
      return `${where}: ${issue.message}${keys && !issue.message.includes(keys.trim()) ? keys : ''}`;
    });
    throw new CliError('CLI_CONFIG', `config file ${path} is invalid: ${issues.join('; ')}`);
  }
  const { mcpServers, ...rest } = parsed.data;
  if (rest.providers !== undefined) {
    // Checked now, so a misspelt field is named before anything runs (`providers.deepseek.apikey`).
    const { parseProvidersConfig } = await import('@nanobot/providers');
    try {
      parseProvidersConfig(rest.providers);
    } catch (error) {
      throw new CliError('CLI_CONFIG', `config file ${path} is invalid: ${(error as Error).message}`, { cause: error });
    }
  }
  if (mcpServers === undefined) return rest;
  const { parseMcpServersConfig } = await import('@nanobot/mcp');
  try {
    return { ...rest, mcpServers: parseMcpServersConfig(mcpServers) };
  } catch (error) {
    const detail = (error as Error).message.replace(/^Invalid MCP server configuration:\s*/, '').split('\n').join('; ');
    throw new CliError('CLI_CONFIG', `config file ${path} is invalid: ${detail}`, { cause: error });
  }
}
