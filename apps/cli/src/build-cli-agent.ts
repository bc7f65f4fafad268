import type { Agent, EventSink } from '@nanobot/runner';
import type { LLMProvider } from '@nanobot/schema';
import type { McpToolSource } from '@nanobot/mcp';
import { CliError } from './cli-error.js';
import type { CliDatabase } from './cli-database.js';
import type { CliSessionStore } from './session-selection.js';
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
  offline: boolean;
  /** Stops the loop (waits for turns to save) and closes MCP servers. Never rejects. */
  close(): Promise<void>;
}

/** Options of {@link buildCliAgent}. */
export interface BuildCliAgentOptions {
  /** The offline model plays the demo whatever is asked. */
  demo?: boolean;
  /** Runner event sinks (see `EventSink` in @nanobot/runner for the ordering contract). */
  events?: EventSink[];
  /** Pause between streamed words of the offline model, so it reads like a live model. */
  offlineDelayMs?: number;
  /** Receives MCP and session-store notices (one line each; called synchronously, must not throw). */
  notice?: (line: string) => void;
}

/**
 * Makes the session store of the settings: PostgreSQL's with `databaseUrl`, else the JSONL store
 * (which refuses a sessions dir inside the workspace).
 */
export async function openSessionStore(settings: CliSettings, notice?: (line: string) => void): Promise<CliSessionStore> {
  if (settings.databaseUrl !== undefined) {
    const { openCliDatabase } = await import('./cli-database.js');
    return (await openCliDatabase(settings.databaseUrl)).sessions;
  }
  const { JsonlSessionStore } = await import('@nanobot/session');
  try {
    return new JsonlSessionStore({
      dir: settings.sessionsDir,
      workspace: settings.workspace,
      ...(notice ? { onWarning: (key: string, w: { message?: string }) => notice(`session ${key}: ${w.message ?? 'a line was skipped'}`) } : {}),
    });
  } catch (error) {
    throw new CliError('CLI_SESSION', (error as Error).message, { cause: error });
  }
}

/**
 * Builds the provider (the offline scripted model, or the configured one loaded lazily), the
 * session store and the whole agent stack (`createAgent`), and connects the config file's MCP
 * servers into the agent's registry (a server that fails is reported through `notice` and
 * skipped). Throws `CliError` for an unusable setup.
 */
export async function buildCliAgent(settings: CliSettings, options: BuildCliAgentOptions = {}): Promise<CliAgent> {
  const [{ createAgent }, { FileArtifactStore }] = await Promise.all([import('@nanobot/runner'), import('@nanobot/governor')]);
  let provider: LLMProvider;
  let modelLine: string;
  const choice = settings.model;
  if (choice.kind === 'offline') {
    const [{ ScriptedProvider }, { offlineModelStep }] = await Promise.all([import('@nanobot/providers/testing'), import('./offline-model.js')]);
    provider = new ScriptedProvider((request) => offlineModelStep(request, { demo: options.demo ?? false }), {
      name: 'offline',
      model: 'nanobot-offline',
      ...(options.offlineDelayMs ? { deltaDelayMs: options.offlineDelayMs } : {}),
    });
    modelLine = `offline: ${choice.reason}; the built-in scripted model answers and the tools it calls are real. Set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL for a real model.`;
  } else {
    const { createProvider } = await import('@nanobot/providers');
    try {
      provider = await createProvider({
        provider: choice.provider,
        model: choice.model,
        ...(choice.apiKey ? { apiKey: choice.apiKey } : {}),
        ...(choice.baseUrl ? { baseUrl: choice.baseUrl } : {}),
        env: {},
      });
    } catch (error) {
      throw new CliError('CLI_PROVIDER', (error as Error).message, { cause: error });
    }
    modelLine = `model: ${choice.model} (${choice.provider}${choice.baseUrl ? ` at ${choice.baseUrl}` : ''})`;
  }
  if (!settings.stream) {
    const { nonStreamingProvider } = await import('./non-streaming-provider.js');
    provider = nonStreamingProvider(provider);
  }
  const database = settings.databaseUrl !== undefined ? await (await import('./cli-database.js')).openCliDatabase(settings.databaseUrl) : null;
  const store = database ? database.sessions : await openSessionStore(settings, options.notice);
  let agent: Agent;
  try {
    agent = createAgent({
      workspace: settings.workspace,
      provider,
      sessions: store,
      ...(database ? { bus: database.bus } : {}),
      ...(choice.kind === 'remote' ? { model: choice.model } : {}),
      ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
      ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
      contextWindowTokens: settings.contextWindowTokens,
      ...(settings.maxIterations !== undefined ? { maxIterations: settings.maxIterations } : {}),
      ...(settings.maxToolResultChars !== undefined ? { maxToolResultChars: settings.maxToolResultChars } : {}),
      restrictToWorkspace: settings.restrictToWorkspace,
      ...(settings.exec ? {} : { exec: false as const }),
      ...(settings.web ? {} : { web: false as const }),
      // The offline model would write nonsense summaries: no consolidation without a real model.
      ...(choice.kind === 'offline' ? { compact: false as const } : {}),
      ...(options.events ? { events: options.events } : {}),
      governOptions: { artifactStore: new FileArtifactStore({ workspace: settings.workspace }) },
    });
  } catch (error) {
    await database?.close();
    throw new CliError('CLI_SESSION', (error as Error).message, { cause: error });
  }
  if (database) {
    // With a database this process is a worker too: turns arrive as jobs (serial per session
    // across all workers), and `ask` goes through them.
    const { databaseAsk } = await import('./cli-database.js');
    agent.start();
    await database.bus.startWorker();
    agent = { ...agent, ask: databaseAsk(agent, database.bus) };
  }
  let mcp: McpToolSource | null = null;
  const servers = settings.config.mcpServers;
  if (servers && Object.keys(servers).length > 0) {
    const { McpToolSource } = await import('@nanobot/mcp');
    mcp = new McpToolSource({
      servers,
      registry: agent.tools,
      onEvent: (event) => {
        if (event.type === 'connect-failed') options.notice?.(`MCP server "${event.server}" failed to start: ${event.error.message.split('\n')[0]}`);
      },
    });
    await mcp.start();
  }
  return {
    agent,
    provider,
    store,
    database,
    mcp,
    modelLine,
    offline: choice.kind === 'offline',
    async close() {
      // The bus first: the worker stops taking jobs and its running turns finish.
      await database?.bus.close().catch(() => undefined);
      await agent.stop().catch(() => undefined);
      await database?.close();
      await mcp?.close().catch(() => undefined);
    },
  };
}
