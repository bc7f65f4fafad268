import type { Agent, EventSink } from '@nanobot/runner';
import type { LLMProvider } from '@nanobot/schema';
import type { JsonlSessionStore } from '@nanobot/session';
import type { McpToolSource } from '@nanobot/mcp';
import { CliError } from './cli-error.js';
import type { CliSettings } from './resolve-settings.js';

/** The wired agent of one CLI invocation and what it runs on. */
export interface CliAgent {
  agent: Agent;
  provider: LLMProvider;
  store: JsonlSessionStore;
  mcp: McpToolSource | null;
  /** One line saying which model answers (and plainly when it is the offline one). */
  modelLine: string;
  /** One line saying how exec's commands are boxed (bubblewrap, or none and why). */
  sandboxLine: string;
  offline: boolean;
  /** Stops the loop (waits for turns to save) and closes MCP servers. Never rejects. */
  close(): Promise<void>;
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
  /** Receives MCP and session-store notices (one line each; called synchronously, must not throw). */
  notice?: (line: string) => void;
}

/** Makes the session store of the settings; refuses a sessions dir inside the workspace. */
export async function openSessionStore(settings: CliSettings, notice?: (line: string) => void): Promise<JsonlSessionStore> {
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
  const [{ createAgent, defaultArtifactsDir }, { execSandboxStatus }] = await Promise.all([import('@nanobot/runner'), import('@nanobot/tools')]);
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
  const store = await openSessionStore(settings, options.notice);
  let agent: Agent;
  try {
    agent = createAgent({
      workspace: settings.workspace,
      provider,
      sessions: store,
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
      // Offloaded results beside the sessions: workspace searches never see them, read_file can open them.
      artifactsDir: defaultArtifactsDir(settings.sessionsDir),
    });
  } catch (error) {
    throw new CliError('CLI_SESSION', (error as Error).message, { cause: error });
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
    mcp,
    modelLine,
    sandboxLine: sandboxLineOf(settings.exec ? execSandboxStatus() : undefined),
    offline: choice.kind === 'offline',
    async close() {
      await agent.stop().catch(() => undefined);
      await mcp?.close().catch(() => undefined);
    },
  };
}
