import { join } from 'node:path';
import type { Agent, EventSink } from '@nanobot/runner';
import type { LLMProvider } from '@nanobot/schema';
import type { McpToolSource } from '@nanobot/mcp';
import { CliError } from './cli-error.js';
import { cliGovernorSettings } from './cli-governor-settings.js';
import { modelFactsNotices, openModelFacts } from './cli-model-facts.js';
import type { CliDatabase } from './cli-database.js';
import type { CliSessionStore } from './session-selection.js';
import { plural } from './plural.js';
import type { CliSettings } from './resolve-settings.js';

/** The wired agent of one CLI invocation and what it runs on. */
export interface CliAgent {
  agent: Agent;
  provider: LLMProvider;
  store: CliSessionStore;
  /** Set with `--database-url`: this process is then also a worker of that database. */
  database: CliDatabase | null;
  mcp: McpToolSource | null;
  /** One line saying which model answers (and plainly when it is the offline one). */
  modelLine: string;
  /** One line saying how exec's commands are boxed (bubblewrap, or none and why). */
  sandboxLine: string;
  offline: boolean;
  /** Names of the configured MCP servers (enabled or not). */
  mcpServers: string[];
  /**
   * Connects the MCP servers, all at once (done by {@link buildCliAgent} unless `deferMcp`).
   * Idempotent; never rejects (a failing server is reported through `notice` and skipped).
   */
  connectMcp(): Promise<void>;
  /** Stops the loop (waits for turns to save) and closes MCP servers. Never rejects. */
  close(): Promise<void>;
}

/** Where the MCP servers' start-up stands (for a progress line). */
export interface McpProgress {
  total: number;
  connected: string[];
  failed: string[];
}

/** `exec sandbox: bubblewrap (auto)`, or `none` with the reason, or that exec is off. */
function sandboxLineOf(status: { mode: string; active: string; warning?: string } | undefined): string {
  if (!status) return 'exec: off';
  return `exec sandbox: ${status.active} (${status.mode})${status.warning ? ` — ${status.warning}` : ''}`;
}

/** Options of {@link buildCliAgent}. */
export interface BuildCliAgentOptions {
  /** The offline model plays the demo whatever is asked. */
  demo?: boolean;
  /** Runner event sinks (see `EventSink` in @nanobot/runner for the ordering contract). */
  events?: EventSink[];
  /** Pause between streamed words of the offline model, so it reads like a live model. */
  offlineDelayMs?: number;
  /**
   * Receives errors a turn could not turn into a reply (a programmer error, an unusable stored
   * history), with the loop stage. Called synchronously, must not throw, not awaited.
   */
  onError?: (error: unknown, context: { sessionKey: string; stage: string }) => void;
  /** Return before connecting the MCP servers: the caller runs `connectMcp()` (to draw progress first). */
  deferMcp?: boolean;
  /** Called after each MCP server connected or failed at start-up. Synchronous, must not throw. */
  onMcpProgress?: (progress: McpProgress) => void;
  /** Receives MCP and session-store notices (one line each; called synchronously, must not throw). */
  notice?: (line: string) => void;
  /** How the user starts the demo in their shell, for the offline model's hint (default `nanobot run --demo`). */
  demoCommand?: string;
}

/**
 * Makes the session store of the settings: PostgreSQL's with `databaseUrl`, else the JSONL store
 * (which refuses a sessions dir inside the workspace).
 */
export async function openSessionStore(settings: CliSettings, notice?: (line: string) => void): Promise<CliSessionStore> {
  if (settings.databaseUrl !== undefined) {
    const { openCliDatabase } = await import('./cli-database.js');
    return (await openCliDatabase(settings.databaseUrl, settings.databaseLeaseMs)).sessions;
  }
  const { JsonlSessionStore } = await import('@nanobot/session');
  try {
    return new JsonlSessionStore({
      dir: settings.sessionsDir,
      workspace: settings.workspace,
      ...(notice ? { onWarning: (key: string, w: { message?: string }) => notice(`session ${key}: ${w.message ?? 'a line was skipped'}`) } : {}),
    });
  } catch (error) {
    const inside = (error as { code?: unknown }).code === 'SESSION_DIR_IN_WORKSPACE';
    const hint = inside ? '; pass --sessions-dir <a directory outside the workspace>, or run without -w' : '';
    throw new CliError('CLI_SESSION', `${(error as Error).message}${hint}`, { cause: error });
  }
}

/**
 * Builds the provider (the offline scripted model, or the configured one loaded lazily), the
 * session store and the whole agent stack (`createAgent`), and connects the config file's MCP
 * servers into the agent's registry (a server that fails is reported through `notice` and
 * skipped). Throws `CliError` for an unusable setup.
 */
export async function buildCliAgent(settings: CliSettings, options: BuildCliAgentOptions = {}): Promise<CliAgent> {
  const [{ createAgent, defaultArtifactsDir }, { execSandboxStatus }] = await Promise.all([import('@nanobot/runner'), import('@nanobot/tools')]);
  let provider: LLMProvider;
  let modelLine: string;
  const choice = settings.model;
  if (choice.kind === 'offline') {
    const [{ ScriptedProvider }, { offlineModelStep }] = await Promise.all([import('@nanobot/providers/testing'), import('./offline-model.js')]);
    provider = new ScriptedProvider((request) => offlineModelStep(request, { demo: options.demo ?? false, ...(options.demoCommand ? { demoCommand: options.demoCommand } : {}) }), {
      name: 'offline',
      model: 'nanobot-offline',
      ...(options.offlineDelayMs ? { deltaDelayMs: options.offlineDelayMs } : {}),
    });
    modelLine = options.demo
      ? `offline: ${choice.reason}; the built-in scripted model answers and the tools it calls are real. Set a provider's key (OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY, …; \`nanobot providers\` lists them) or OPENAI_BASE_URL for a real model.`
      : `offline: ${choice.reason}; the built-in scripted model answers in words and runs no tools. Set a provider's key (OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY, …; \`nanobot providers\` lists them) or OPENAI_BASE_URL for a real model.`;
  } else {
    const { createResolvedProvider } = await import('@nanobot/providers');
    try {
      provider = await createResolvedProvider(choice.resolved);
    } catch (error) {
      throw new CliError('CLI_PROVIDER', (error as Error).message, { cause: error });
    }
    modelLine = `model: ${choice.model} (${choice.provider}${choice.baseUrl ? ` at ${choice.baseUrl}` : ''})`;
  }
  const modelFacts = await openModelFacts(settings, provider);
  if (!settings.stream) {
    const { nonStreamingProvider } = await import('./non-streaming-provider.js');
    provider = nonStreamingProvider(provider);
  }
  const database = settings.databaseUrl !== undefined ? await (await import('./cli-database.js')).openCliDatabase(settings.databaseUrl, settings.databaseLeaseMs) : null;
  const store = database ? database.sessions : await openSessionStore(settings, options.notice);
  // What the agent learns of estimate vs billed input outlives the process (beside the sessions;
  // the offline model reports no usage).
  const calibrationFile = choice.kind === 'remote' ? await import('./calibration-file.js') : null;
  const calibration = calibrationFile ? calibrationFile.openCalibrationFile(join(settings.sessionsDir, calibrationFile.CALIBRATION_FILE), options.notice) : null;
  const sinks: EventSink[] = [...(options.events ?? [])];
  if (calibration) sinks.push((event) => { if (event.type === 'turn_end') calibration.save(); });
  if (modelFacts && options.notice) sinks.push(modelFactsNotices(options.notice));
  const events: EventSink[] | undefined = sinks.length > 0 ? sinks : options.events;
  // The same governor settings `inspect` governs with; a window left to the model comes from its facts.
  const { contextWindowTokens, ...governor } = cliGovernorSettings(settings, calibration?.calibrator ?? null);
  let agent: Agent;
  try {
    agent = createAgent({
      workspace: settings.workspace,
      provider,
      sessions: store,
      ...(database ? { bus: database.bus } : {}),
      ...governor,
      ...(modelFacts ? { modelFacts } : { contextWindowTokens }),
      ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
      ...(settings.maxIterations !== undefined ? { maxIterations: settings.maxIterations } : {}),
      restrictToWorkspace: settings.restrictToWorkspace,
      ...(settings.exec ? {} : { exec: false as const }),
      ...(settings.web ? {} : { web: false as const }),
      // The offline model would write nonsense summaries: no consolidation without a real model.
      ...(choice.kind === 'offline' ? { compact: false as const } : {}),
      ...(events ? { events } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
      // Offloaded results beside the sessions: workspace searches never see them, read_file can open them.
      artifactsDir: defaultArtifactsDir(settings.sessionsDir),
    });
  } catch (error) {
    await database?.close();
    throw new CliError('CLI_SESSION', (error as Error).message, { cause: error });
  }
  if (database) {
    // With a database this process is a worker too: turns arrive as jobs (serial per session
    // across all workers), and `ask` goes through them.
    const { databaseAsk } = await import('./cli-database.js');
    // A turn that lost its session (taken over, or its lease ran out) stops at once.
    const running = agent;
    database.bus.onEvent((event) => {
      if (event.type === 'turn_fenced') running.abort(event.sessionKey);
    });
    agent.start();
    await database.bus.startWorker();
    agent = { ...agent, ask: databaseAsk(agent, database.bus) };
  }
  let mcp: McpToolSource | null = null;
  const servers = settings.config.mcpServers;
  const progress: McpProgress = { total: servers ? Object.keys(servers).length : 0, connected: [], failed: [] };
  const tell = (): void => {
    try {
      options.onMcpProgress?.({ total: progress.total, connected: [...progress.connected], failed: [...progress.failed] });
    } catch {
      // Drawing progress must never break the start-up.
    }
  };
  if (servers && Object.keys(servers).length > 0) {
    const { McpToolSource } = await import('@nanobot/mcp');
    mcp = new McpToolSource({
      servers,
      registry: agent.tools,
      onEvent: (event) => {
        // The error already names the server and says what failed ("… failed to start: …").
        if (event.type === 'connected' && !event.reconnect) {
          progress.connected.push(event.server);
          tell();
        } else if (event.type === 'connect-failed' && !event.willRetry && !progress.failed.includes(event.server) && !progress.connected.includes(event.server)) {
          progress.failed.push(event.server);
          tell();
        }
        if (event.type === 'connect-failed') options.notice?.(`${event.error.message.split('\n')[0]}${event.willRetry ? ' (retrying)' : ''}`);
        else if (event.type === 'disconnected') options.notice?.(`MCP server '${event.server}' disconnected: ${event.reason.split('\n')[0]}; reconnecting`);
        else if (event.type === 'connected' && event.reconnect) options.notice?.(`MCP server '${event.server}' reconnected (${plural(event.toolCount, 'tool')})`);
      },
    });
  }
  let connecting: Promise<void> | null = null;
  const connectMcp = (): Promise<void> => {
    connecting ??= mcp ? mcp.start().then(() => undefined, () => undefined) : Promise.resolve();
    return connecting;
  };
  if (!options.deferMcp) await connectMcp();
  return {
    agent,
    provider,
    store,
    database,
    mcp,
    modelLine,
    sandboxLine: sandboxLineOf(settings.exec ? execSandboxStatus() : undefined),
    offline: choice.kind === 'offline',
    mcpServers: servers ? Object.keys(servers) : [],
    connectMcp,
    async close() {
      // The bus first: the worker stops taking jobs and its running turns finish.
      await database?.bus.close().catch(() => undefined);
      await agent.stop().catch(() => undefined);
      await database?.close();
      await mcp?.close().catch(() => undefined);
    },
  };
}
