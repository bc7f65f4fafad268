import { mkdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultSessionsDir } from '@nanobot/runner';
import { ConfigurationError } from '@nanobot/schema';
import type { LLMProvider } from '@nanobot/schema';
import { AgentHost } from './agent-host.js';
import { seedDemoWorkspace } from './demo-fixtures.js';
import { listProviders } from '@nanobot/providers';
import { modelWindow, resolveModel } from './resolve-model.js';
import type { ServerInfo } from '../shared/protocol.js';
import { startWebServer } from './web-server.js';
import type { WebDatabase } from './web-database.js';
import type { RunningWebServer } from './web-server.js';

/** Options of {@link startDemo}; everything has a default. */
export interface StartDemoOptions {
  /** Default 8765; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  hostname?: string;
  /** The agent's workspace (must exist). Default: a seeded demo workspace under the system temp directory. */
  workspace?: string;
  /** Where sessions are stored. Default: beside the demo workspace, or the CLI's default for `workspace`. */
  sessionsDir?: string;
  /** The built page. Default: `../client` next to this file's compiled location (dist/client). */
  clientDir?: string;
  /** Environment read for the model (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Force the offline scripted model. */
  offline?: boolean;
  /** A ready provider (tests); wins over the environment. */
  provider?: LLMProvider;
  /** A registry name (`--provider`; default `NANOBOT_PROVIDER`, else chosen as the CLI chooses). */
  providerName?: string;
  /** The model (`--model`; default `NANOBOT_MODEL`, else the provider's default). */
  model?: string;
  /** Pause between the offline model's streamed words. */
  deltaDelayMs?: number;
  contextWindowTokens?: number;
  maxTokens?: number;
  /** Include the exec tools (exec, write_stdin, list_exec_sessions; default true). */
  exec?: boolean;
  /** Include the web tools (web_fetch, web_search; default true). */
  web?: boolean;
  /**
   * PostgreSQL URL: sessions and the message bus live there (@nanobot/postgres) and the demo is one
   * worker of that database; the page's own turns still run here so they stream.
   */
  databaseUrl?: string;
  /** Unexpected errors of the agent and the server (`where` says which part). Called, not awaited; must not throw. */
  onError?: (error: unknown, where: string) => void;
}

/** A running demo. */
export interface RunningDemo extends RunningWebServer {
  host: AgentHost;
  workspace: string;
  sessionsDir: string;
  /** What went wrong on the way that did not stop the demo (a models endpoint that failed), one line each. */
  notices: string[];
}

/** Where `vite build` puts the page, relative to the compiled server (dist/server → dist/client). */
export function defaultClientDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', 'client');
}

/**
 * Starts the whole demo: resolves the model (offline scripted model unless an API key is
 * configured), prepares the workspace, wires an {@link AgentHost} and serves the page. Resolves
 * once listening; `close()` stops the server and then the agent (running turns are saved).
 * Rejects with a `ConfigurationError` for a named workspace that is not a directory or a model
 * configuration the providers refuse, and with the listen error (e.g. `EADDRINUSE`); nothing is
 * left running then.
 */
export async function startDemo(options: StartDemoOptions = {}): Promise<RunningDemo> {
  const env = options.env ?? process.env;
  const model = await resolveModel(env, {
    ...(options.offline !== undefined ? { offline: options.offline } : {}),
    ...(options.deltaDelayMs !== undefined ? { deltaDelayMs: options.deltaDelayMs } : {}),
    ...(options.providerName !== undefined ? { provider: options.providerName } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
  });
  const provider = options.provider ?? model.provider;
  let workspace = options.workspace;
  let sessionsDir = options.sessionsDir;
  if (workspace === undefined) {
    const root = join(tmpdir(), 'nanobot-web-demo');
    workspace = join(root, 'workspace');
    sessionsDir ??= join(root, 'sessions');
    await mkdir(workspace, { recursive: true });
    await seedDemoWorkspace(workspace);
  }
  workspace = resolve(workspace);
  if (options.workspace !== undefined) {
    // A typo must not silently become a new empty workspace the agent then works in.
    const info = await stat(workspace).catch(() => null);
    if (!info?.isDirectory()) throw new ConfigurationError(`workspace ${workspace} ${info ? 'is not a directory' : 'does not exist'}`);
  }
  sessionsDir = resolve(sessionsDir ?? defaultSessionsDir(workspace));
  // A window nobody set comes from the model's facts (its provider's models endpoint, cached
  // beside the sessions, else the model table), as the CLI's does.
  const sized = options.contextWindowTokens !== undefined || options.provider ? null : await modelWindow(model, sessionsDir);
  const contextWindowTokens = options.contextWindowTokens ?? sized?.contextWindowTokens ?? model.contextWindowTokens;
  const maxTokens = options.maxTokens ?? sized?.maxTokens ?? model.maxTokens;
  const facts = sized?.facts ?? null;
  const windowSource: ServerInfo['windowSource'] =
    options.contextWindowTokens !== undefined || model.windowSet ? 'set' : facts?.contextWindow !== undefined && facts.source !== 'none' ? facts.source : 'default';
  // `GET /api/providers` lists the registry with the same choice the demo made.
  const chosenName = options.providerName ?? (env.NANOBOT_PROVIDER || undefined);
  const chosenModel = options.model ?? (env.NANOBOT_MODEL || undefined);
  const notices = facts?.problem ? [`model facts for ${facts.model}: ${facts.problem}`] : [];
  const database: WebDatabase | null = options.databaseUrl !== undefined ? await (await import('./web-database.js')).openWebDatabase(options.databaseUrl, 'web') : null;
  const host = new AgentHost({
    workspace,
    sessionsDir,
    ...(database ? { sessions: database.sessions, bus: database.bus } : {}),
    provider,
    model: options.provider ? provider.defaultModel : model.model,
    contextWindowTokens,
    maxTokens,
    ...(options.exec !== undefined ? { exec: options.exec } : {}),
    ...(options.web !== undefined ? { web: options.web } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  let server: RunningWebServer;
  try {
    if (database) {
      host.loop.start();
      await database.postgres.startWorker();
    }
    server = await startWebServer({
      host,
      clientDir: options.clientDir ?? defaultClientDir(),
      info: { model: options.provider ? provider.defaultModel : model.model, provider: options.provider ? provider.name : (model.resolved?.provider ?? provider.name), offline: options.provider ? provider.name === 'offline' : model.offline, contextWindowTokens, windowSource },
      providers: () => listProviders({ ...(chosenName !== undefined && chosenName !== 'offline' ? { provider: chosenName } : {}), ...(chosenModel !== undefined ? { model: chosenModel } : {}), env }),
      port: options.port ?? 8765,
      hostname: options.hostname ?? '127.0.0.1',
      ...(options.onError ? { onError: (error: unknown) => options.onError?.(error, 'http') } : {}),
    });
  } catch (error) {
    await database?.closeBus();
    await host.close();
    await database?.end();
    throw error;
  }
  return {
    ...server,
    host,
    workspace,
    sessionsDir,
    notices,
    close: async () => {
      await server.close();
      // The worker first: it stops taking jobs and its running turns finish.
      await database?.closeBus();
      await host.close();
      await database?.end();
    },
  };
}
