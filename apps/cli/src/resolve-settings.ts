import { mkdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { loadCliConfig, CONFIG_FILE_PATH, type CliConfig } from './cli-config.js';
import { CliError } from './cli-error.js';
import type { CliFlags } from './parse-cli-args.js';
import type { ProviderKind } from '@nanobot/providers';

/** The model the CLI will talk to. */
export type ModelChoice =
  | { kind: 'offline'; reason: string }
  | { kind: 'remote'; provider: ProviderKind; model: string; apiKey?: string; baseUrl?: string };

/** Everything a command needs, resolved from flags, then env, then the config file, then defaults. */
export interface CliSettings {
  workspace: string;
  /** True when the workspace is a fresh temp directory made for this run (the demo). */
  temporaryWorkspace: boolean;
  /** Why the workspace is not the current directory although none was named (shown to the user). */
  workspaceNote?: string;
  configPath: string;
  config: CliConfig;
  model: ModelChoice;
  sessionsDir: string;
  /** PostgreSQL URL: sessions and the message bus live there (see @nanobot/postgres) instead of in JSONL files and memory. */
  databaseUrl?: string;
  contextWindowTokens: number;
  maxIterations?: number;
  maxToolResultChars?: number;
  temperature?: number;
  maxTokens?: number;
  stream: boolean;
  restrictToWorkspace: boolean;
  exec: boolean;
  web: boolean;
}

/** Default context window when nothing says otherwise (the reference's default). */
export const DEFAULT_CONTEXT_WINDOW = 65_536;

/** Inputs of {@link resolveSettings}. */
export interface ResolveSettingsInput {
  flags: CliFlags;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Forces the offline model (the demo). */
  offline?: boolean;
  /** Makes the workspace when none is named (awaited; may throw). Without it the cwd is used. */
  makeWorkspace?: () => Promise<string>;
}

function positiveInt(value: string | number | undefined, what: string, min = 1): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < min) throw new CliError('CLI_USAGE', `${what} must be an integer of at least ${min}, got "${value}"`);
  return n;
}

async function checkDirectory(path: string, what: string): Promise<void> {
  const info = await stat(path).catch(() => null);
  if (!info) throw new CliError('CLI_WORKSPACE', `${what} ${path} does not exist`);
  if (!info.isDirectory()) throw new CliError('CLI_WORKSPACE', `${what} ${path} is not a directory`);
}

function chooseModel(flags: CliFlags, env: ResolveSettingsInput['env'], config: CliConfig, resolveProviderConfig: typeof import('@nanobot/providers').resolveProviderConfig): ModelChoice {
  const name = flags.provider ?? env.NANOBOT_PROVIDER ?? config.provider;
  if (name !== undefined && name !== 'openai' && name !== 'anthropic' && name !== 'offline') {
    throw new CliError('CLI_USAGE', `unknown provider "${name}" (use openai, anthropic or offline)`);
  }
  if (flags.offline || name === 'offline') return { kind: 'offline', reason: flags.offline ? '--offline was given' : 'the provider is set to "offline"' };
  const model = flags.model ?? (env.NANOBOT_MODEL || undefined) ?? config.model;
  // Each provider reads its own env variable: an OpenAI-compatible URL must never reach the
  // Anthropic client (or the reverse) when both are set. Flag and config apply to either.
  const baseUrl = flags['base-url'] ?? (env.OPENAI_BASE_URL || undefined) ?? config.baseUrl;
  const anthropicBaseUrl = flags['base-url'] ?? (env.ANTHROPIC_BASE_URL || undefined) ?? config.baseUrl;
  const configured = name !== undefined || baseUrl !== undefined || !!env.OPENAI_API_KEY || !!env.ANTHROPIC_API_KEY || config.apiKey !== undefined;
  if (!configured) {
    const extra = model ? ` (a model, "${model}", is named but no provider: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL)` : '';
    return { kind: 'offline', reason: `no model provider is configured${extra}` };
  }
  const base = { ...(name ? { provider: name as ProviderKind } : {}), ...(model ? { model } : {}), ...(baseUrl ? { baseUrl } : {}), env };
  let resolved;
  try {
    resolved = resolveProviderConfig(base);
  } catch (error) {
    if (config.apiKey === undefined) throw new CliError('CLI_PROVIDER', (error as Error).message, { cause: error });
    try {
      resolved = resolveProviderConfig({ ...base, apiKey: config.apiKey });
    } catch (again) {
      throw new CliError('CLI_PROVIDER', (again as Error).message, { cause: again });
    }
  }
  // The environment wins over the file: the file's key only fills in a missing env key.
  const envKey = resolved.provider === 'anthropic' ? env.ANTHROPIC_API_KEY : env.OPENAI_API_KEY;
  const apiKey = envKey || config.apiKey || resolved.apiKey;
  const chosenBaseUrl = resolved.provider === 'anthropic' ? anthropicBaseUrl : resolved.baseUrl;
  return {
    kind: 'remote',
    provider: resolved.provider,
    model: resolved.model,
    ...(apiKey ? { apiKey } : {}),
    ...(chosenBaseUrl ? { baseUrl: chosenBaseUrl } : {}),
  };
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Resolves the settings of one invocation. Run from a directory that holds the default sessions
 * directory (the home directory), with no workspace named, the workspace is
 * `~/.nanobot/workspace` (created if needed; `workspaceNote` says why). Throws `CliError` (one line, nothing touched) for a
 * missing workspace, an unreadable or invalid config file, a bad number or an unusable provider.
 */
export async function resolveSettings(input: ResolveSettingsInput): Promise<CliSettings> {
  const { flags, env, cwd } = input;
  const named = flags.workspace ?? (env.NANOBOT_WORKSPACE || undefined);
  let workspace: string;
  let temporaryWorkspace = false;
  let workspaceNote: string | undefined;
  if (named !== undefined) {
    workspace = resolve(cwd, named);
    await checkDirectory(workspace, 'workspace');
  } else if (input.makeWorkspace) {
    workspace = await input.makeWorkspace();
    temporaryWorkspace = true;
  } else {
    workspace = resolve(cwd);
    await checkDirectory(workspace, 'workspace');
  }
  const namedConfig = flags.config ?? (env.NANOBOT_CONFIG || undefined);
  const configPath = namedConfig !== undefined ? resolve(cwd, namedConfig) : join(workspace, CONFIG_FILE_PATH);
  const config = await loadCliConfig(configPath, namedConfig !== undefined);

  const { resolveProviderConfig } = await import('@nanobot/providers');
  const model: ModelChoice = input.offline ? { kind: 'offline', reason: 'this is the offline demo' } : chooseModel(flags, env, config, resolveProviderConfig);

  let sessionsDir: string;
  const sessionsFlag = flags['sessions-dir'] ?? (env.NANOBOT_SESSIONS_DIR || undefined);
  if (sessionsFlag !== undefined) sessionsDir = resolve(cwd, sessionsFlag);
  else if (config.sessionsDir !== undefined) sessionsDir = isAbsolute(config.sessionsDir) ? config.sessionsDir : resolve(dirname(configPath), config.sessionsDir);
  else if (temporaryWorkspace) sessionsDir = `${workspace}.sessions`;
  else {
    const { defaultSessionsDir } = await import('@nanobot/runner');
    sessionsDir = defaultSessionsDir(workspace);
    if (named === undefined && !temporaryWorkspace && isInside(sessionsDir, workspace)) {
      // Run from the home directory (or above it): the default sessions dir (~/.nanobot) would be
      // inside the file tools' reach. The tools then work in ~/.nanobot/workspace (the reference's
      // default workspace) and the sessions stay out of their reach.
      const home = join(homedir(), '.nanobot', 'workspace');
      await mkdir(home, { recursive: true }).catch((error: unknown) => {
        throw new CliError('CLI_WORKSPACE', `cannot create the default workspace ${home}: ${(error as Error).message}`, { cause: error });
      });
      workspaceNote = `the current directory ${workspace} holds nanobot's own sessions, so the tools work in ${home}; pass -w <dir> (and --sessions-dir outside it) to choose another`;
      workspace = home;
      sessionsDir = defaultSessionsDir(workspace);
    }
  }

  const databaseUrl = flags['database-url'] ?? (env.NANOBOT_DATABASE_URL || undefined) ?? config.databaseUrl;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new CliError('CLI_USAGE', `--database-url must be a postgres:// URL, got "${databaseUrl.replace(/\/\/[^@/]*@/, '//…@')}"`);
  }

  const contextWindowTokens =
    positiveInt(flags['context-window'], '--context-window', 1024) ??
    positiveInt(env.NANOBOT_CONTEXT_WINDOW, 'NANOBOT_CONTEXT_WINDOW', 1024) ??
    config.contextWindowTokens ??
    DEFAULT_CONTEXT_WINDOW;
  const maxIterations = positiveInt(flags['max-iterations'], '--max-iterations') ?? config.maxIterations;
  return {
    workspace,
    temporaryWorkspace,
    ...(workspaceNote !== undefined ? { workspaceNote } : {}),
    configPath,
    config,
    model,
    sessionsDir,
    ...(databaseUrl !== undefined ? { databaseUrl } : {}),
    contextWindowTokens,
    ...(maxIterations !== undefined ? { maxIterations } : {}),
    ...(config.maxToolResultChars !== undefined ? { maxToolResultChars: config.maxToolResultChars } : {}),
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
    ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
    stream: !flags['no-stream'],
    restrictToWorkspace: config.restrictToWorkspace ?? true,
    exec: config.tools?.exec ?? true,
    web: config.tools?.web ?? true,
  };
}
