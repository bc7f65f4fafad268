import { mkdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { loadCliConfig, CONFIG_FILE_PATH, type CliConfig } from './cli-config.js';
import { CliError } from './cli-error.js';
import type { CliFlags } from './parse-cli-args.js';
import type { ResolvedProviderConfig } from '@nanobot/providers';

/** The model the CLI will talk to. */
export type ModelChoice =
  | { kind: 'offline'; reason: string }
  | {
      kind: 'remote';
      /** Registry name (`deepseek`) or a provider added under the config file's `providers`. */
      provider: string;
      /** The model as sent (a prefix the provider strips is gone). */
      model: string;
      baseUrl?: string;
      /** Everything `createResolvedProvider` needs (key, headers, backend, governor target). */
      resolved: ResolvedProviderConfig;
    };

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
  /**
   * How long a worker's session lease lasts without a renewal (ms; default the bus's 4000). A
   * process whose event loop can stall longer (a loaded machine) needs more, or its turns are
   * fenced and run again by another worker.
   */
  databaseLeaseMs?: number;
  /** The window when none is known of the model (the reference's default), or the one the user set. */
  contextWindowTokens: number;
  /**
   * True when the user set no window (flag, env, config) and a real model answers: the window and
   * reply reserve then come from the model's facts (its provider's models endpoint, cached beside
   * the sessions, else the model table), with `contextWindowTokens` only as the last fallback.
   */
  windowFromModel: boolean;
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

type Providers = typeof import('@nanobot/providers');

/** Where a setting came from, to name it in an error the way the user wrote it. */
function origin(flag: string | undefined, envValue: string | undefined, flagName: string, envName: string, configName: string): string {
  return flag !== undefined ? flagName : envValue ? envName : `config ${configName}`;
}

function chooseModel(flags: CliFlags, env: ResolveSettingsInput['env'], config: CliConfig, providers: Providers): ModelChoice {
  const name = flags.provider ?? (env.NANOBOT_PROVIDER || undefined) ?? config.provider;
  if (flags.offline || name === 'offline') return { kind: 'offline', reason: flags.offline ? '--offline was given' : 'the provider is set to "offline"' };
  const model = flags.model ?? (env.NANOBOT_MODEL || undefined) ?? config.model;
  const baseUrl = flags['base-url'] ?? config.baseUrl;
  let resolved: ResolvedProviderConfig;
  try {
    // The registry decides, as the reference does: an explicit provider, a `<name>/` model prefix,
    // model keywords, a local base URL, gateways, then anything configured. Every spec's key
    // variable (DEEPSEEK_API_KEY, GEMINI_API_KEY, …) and the config file's `providers` count.
    resolved = providers.resolveProviderConfig({
      ...(name !== undefined ? { provider: name } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(baseUrl !== undefined ? { baseUrl } : {}),
      ...(config.apiKey !== undefined ? { apiKey: config.apiKey } : {}),
      ...(config.providers !== undefined ? { providers: config.providers } : {}),
      env,
    });
  } catch (error) {
    if (!(error instanceof providers.ProviderConfigError)) throw error;
    if (error.problem === 'nothing_configured' && name === undefined) {
      const extra = model ? ` (a model, "${model}", is named but no provider: set its API key variable, e.g. OPENAI_API_KEY, ANTHROPIC_API_KEY or DEEPSEEK_API_KEY, or OPENAI_BASE_URL; \`nanobot providers\` lists them)` : '';
      return { kind: 'offline', reason: `no model provider is configured${extra}` };
    }
    const where =
      error.field === 'provider' ? origin(flags.provider, env.NANOBOT_PROVIDER, '--provider', 'NANOBOT_PROVIDER', 'provider')
      : error.field === 'model' ? origin(flags.model, env.NANOBOT_MODEL, '--model', 'NANOBOT_MODEL', 'model')
      : error.field === 'baseUrl' ? (flags['base-url'] !== undefined ? '--base-url' : 'config baseUrl')
      : error.field.startsWith('providers') ? `config ${error.field}`
      : error.field;
    // A missing key or endpoint is no fault of what was written: the message says what to set.
    const said = error.problem === 'missing_key' || error.problem === 'missing_base_url' ? error.message : `${where}: ${error.message}`;
    throw new CliError('CLI_PROVIDER', said, { cause: error });
  }
  // The environment wins over the file: the file's apiKey / baseUrl fill in only what the
  // chosen provider's own variables leave unset.
  const spec = resolved.spec;
  const envKey = spec.envKey && spec.envKeyConfigures ? env[spec.envKey] || undefined : undefined;
  if (envKey && config.apiKey !== undefined && resolved.apiKey === config.apiKey) resolved = { ...resolved, apiKey: envKey };
  const baseVar = providers.BASE_URL_ENV[resolved.provider];
  const envBase = baseVar ? env[baseVar] || undefined : undefined;
  if (envBase && flags['base-url'] === undefined && config.baseUrl !== undefined && resolved.baseUrl === config.baseUrl) resolved = { ...resolved, baseUrl: envBase };
  return { kind: 'remote', provider: resolved.provider, model: resolved.model, ...(resolved.baseUrl ? { baseUrl: resolved.baseUrl } : {}), resolved };
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

  const model: ModelChoice = input.offline ? { kind: 'offline', reason: 'this is the offline demo' } : chooseModel(flags, env, config, await import('@nanobot/providers'));

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

  const databaseLeaseMs = positiveInt(env.NANOBOT_DATABASE_LEASE_MS, 'NANOBOT_DATABASE_LEASE_MS', 1000) ?? config.databaseLeaseMs;

  const chosenWindow =
    positiveInt(flags['context-window'], '--context-window', 1024) ??
    positiveInt(env.NANOBOT_CONTEXT_WINDOW, 'NANOBOT_CONTEXT_WINDOW', 1024) ??
    config.contextWindowTokens;
  const contextWindowTokens = chosenWindow ?? DEFAULT_CONTEXT_WINDOW;
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
    ...(databaseLeaseMs !== undefined ? { databaseLeaseMs } : {}),
    contextWindowTokens,
    windowFromModel: chosenWindow === undefined && model.kind === 'remote',
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
