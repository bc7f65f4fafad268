import type { Tool } from '@nanobot/tools-core';
import { compareCodePoints, ConfigurationError } from '@nanobot/schema';
import { McpClosedError, McpConnectionError } from './mcp-errors.js';
import { parseMcpServersConfig, type McpServerConfig, type McpServerConfigInput } from './mcp-server-config.js';
import {
  McpServerConnection,
  type McpConnectionEvent,
  type McpConnectionState,
  type McpListedTool,
  type McpReconnectOptions,
} from './mcp-server-connection.js';
import { McpPromptTool, McpResourceTool } from './mcp-capability-tools.js';
import { McpTool } from './mcp-tool.js';
import { mcpToolName } from './mcp-tool-name.js';
import { planMcpToolNames, type McpToolRef } from './plan-mcp-tool-names.js';

/**
 * The part of `ToolRegistry` (@nanobot/registry) the source needs. Any object of this shape
 * works, so the source can feed a registry of another copy of the package, or a test double.
 */
export interface McpRegistryTarget {
  register(tool: Tool<any>, options?: { replace?: boolean }): void;
  unregister(name: string): boolean | void;
  get(name: string): unknown;
}

/** Everything the source reports. Connection events come from `McpServerConnection`. */
export type McpSourceEvent =
  | McpConnectionEvent
  | { type: 'tools-changed'; server: string; added: string[]; removed: string[]; updated: string[] }
  | { type: 'collision'; name: string; kept: McpToolRef; dropped: McpToolRef }
  | { type: 'name-taken'; name: string; dropped: McpToolRef }
  | { type: 'tool-skipped'; name: string; dropped: McpToolRef; reason: string };

/** Options of {@link McpToolSource}. */
export interface McpToolSourceOptions {
  /** Servers by name: raw config-file entries (validated here) or parsed ones. */
  servers: Record<string, McpServerConfigInput | McpServerConfig>;
  /** Where tools are registered and unregistered as servers come, change and go. */
  registry?: McpRegistryTarget;
  /**
   * `startup` (default): `start()` connects every server and resolves when each is up or has
   * failed. `lazy`: nothing is spawned until `ready()` or a tool call needs it.
   */
  connect?: 'startup' | 'lazy';
  /** Bound on spawn + handshake + first listing per server. Default 30 s. */
  connectTimeoutMs?: number;
  /** Background reconnect after a server drops; `false` = only when the next call needs it. */
  reconnect?: McpReconnectOptions | false;
  /** Implementation info sent to servers. */
  clientInfo?: { name: string; version: string };
  /**
   * Lifecycle, collision and change reports. Called synchronously and not awaited; a throw is
   * swallowed; must not mutate the event. This is how a server that fails to start is reported.
   */
  onEvent?: (event: McpSourceEvent) => void;
}

/** Outcome of connecting every server once. */
export interface McpStartReport {
  /** Servers that connected, in name order. */
  connected: string[];
  /** Servers that failed to start (skipped; the rest work). */
  failed: { server: string; error: McpConnectionError }[];
  /** Servers with `enabled: false`. */
  disabled: string[];
}

/** A registered MCP tool, for listings (`nanobot tools`). */
export interface McpToolInfo {
  /** Registry name, `mcp_<server>_<tool>` sanitised. */
  name: string;
  server: string;
  /** Name on the server. */
  toolName: string;
  description: string;
  /** The registered tool object: a server tool, or a resource/prompt wrapper (read-only). */
  tool: McpTool | McpResourceTool | McpPromptTool;
}

/** State of one server, for status displays. */
export interface McpServerStatus {
  server: string;
  transport: 'stdio' | 'http';
  state: McpConnectionState | 'disabled';
  toolCount: number;
  /** Last start failure, if any. */
  error?: string;
}

interface Registered {
  ref: McpToolRef;
  fingerprint: string;
  tool: McpTool | McpResourceTool | McpPromptTool;
}

/**
 * Tools from Model Context Protocol servers, kept in a registry: every server tool becomes
 * `mcp_<server>_<tool>` (sanitised to `^[a-zA-Z0-9_-]{1,64}$`) with the server's JSON Schema as
 * its parameters. The registered set follows the servers: re-listed on
 * `notifications/tools/list_changed` and after reconnects (removed tools unregistered, new ones
 * registered, changed ones replaced). Names that collide after sanitising are reported and
 * resolved the same way on every run (the lowest server name, then tool name, wins), so the
 * definitions the model sees do not depend on which server answered first.
 */
export class McpToolSource {
  readonly #connections = new Map<string, McpServerConnection>();
  readonly #configs = new Map<string, McpServerConfig>();
  readonly #registered = new Map<string, Registered>();
  readonly #reported = new Set<string>();
  readonly #failures = new Map<string, McpConnectionError>();
  readonly #options: McpToolSourceOptions;
  #ready: Promise<McpStartReport> | undefined;
  #closed = false;

  /** Validates the server entries (throws `ConfigurationError` listing every bad field); connects nothing yet. */
  constructor(options: McpToolSourceOptions) {
    checkOptions(options);
    this.#options = options;
    const servers = parseMcpServersConfig(options.servers, 'servers');
    for (const name of Object.keys(servers).sort(compareCodePoints)) {
      const config = servers[name];
      this.#configs.set(name, config);
      if (!config.enabled) continue;
      this.#connections.set(
        name,
        new McpServerConnection(name, config, {
          clientInfo: options.clientInfo,
          connectTimeoutMs: options.connectTimeoutMs,
          reconnect: options.reconnect,
          onToolsChanged: () => this.#sync(),
          onEvent: (event) => this.#emit(event),
        }),
      );
    }
  }

  /**
   * In `startup` mode connects every enabled server in parallel and registers their tools; in
   * `lazy` mode returns at once (report empty) and leaves that to `ready()`. Never rejects for a
   * server that fails: it is reported (`connect-failed` event and `report.failed`) and skipped.
   */
  async start(): Promise<McpStartReport> {
    if (this.#closed) throw new McpClosedError();
    if ((this.#options.connect ?? 'startup') === 'lazy') return { connected: [], failed: [], disabled: this.#disabled() };
    return this.ready();
  }

  /** Connects every enabled server once (later calls share the first attempt) and registers their tools. */
  ready(): Promise<McpStartReport> {
    if (this.#closed) return Promise.reject(new McpClosedError());
    this.#ready ??= this.#connectAll();
    return this.#ready;
  }

  /** The registered MCP tools, sorted by registry name. */
  tools(): McpToolInfo[] {
    return [...this.#registered.entries()]
      .sort(([a], [b]) => compareCodePoints(a, b))
      .map(([name, entry]) => ({
        name,
        server: entry.ref.server,
        toolName: entry.ref.tool,
        description: entry.tool.description,
        tool: entry.tool,
      }));
  }

  /** The registered tool of that registry name. */
  get(name: string): McpTool | McpResourceTool | McpPromptTool | undefined {
    return this.#registered.get(name)?.tool;
  }

  /** One status row per configured server, in name order. */
  status(): McpServerStatus[] {
    return [...this.#configs.entries()].map(([server, config]) => {
      const connection = this.#connections.get(server);
      const failure = this.#failures.get(server);
      return {
        server,
        transport: config.transport,
        state: connection ? connection.state : 'disabled',
        toolCount: [...this.#registered.values()].filter((entry) => entry.ref.server === server).length,
        ...(failure && connection?.state !== 'connected' ? { error: failure.message } : {}),
      };
    });
  }

  /**
   * Unregisters every MCP tool and closes every server (stdio children are ended, HTTP sessions
   * terminated). Idempotent; the source cannot be started again.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const name of [...this.#registered.keys()]) this.#unregister(name);
    await Promise.all([...this.#connections.values()].map((connection) => connection.close()));
  }

  async #connectAll(): Promise<McpStartReport> {
    const report: McpStartReport = { connected: [], failed: [], disabled: this.#disabled() };
    await Promise.all(
      [...this.#connections.values()].map(async (connection) => {
        try {
          await connection.connect();
          this.#failures.delete(connection.name);
          report.connected.push(connection.name);
        } catch (error) {
          const failure =
            error instanceof McpConnectionError
              ? error
              : new McpConnectionError(connection.name, String(error), { cause: error });
          this.#failures.set(connection.name, failure);
          report.failed.push({ server: connection.name, error: failure });
          this.#emit({ type: 'connect-failed', server: connection.name, error: failure, willRetry: false });
        }
      }),
    );
    report.connected.sort(compareCodePoints);
    report.failed.sort((a, b) => compareCodePoints(a.server, b.server));
    return report;
  }

  #disabled(): string[] {
    return [...this.#configs.entries()].filter(([, config]) => !config.enabled).map(([name]) => name);
  }

  /** Brings the registered set in line with every server's current tool list. */
  #sync(): void {
    if (this.#closed) return;
    const registry = this.#options.registry;
    const listed = new Map<string, McpListedTool>();
    const candidates: McpToolRef[] = [];
    for (const connection of this.#connections.values()) {
      const config = this.#configs.get(connection.name)!;
      for (const tool of connection.tools) {
        // Resources and prompts have no name filter of their own: like the reference, they are
        // wrapped only when every tool is allowed (`enabledTools` includes "*").
        if (tool.kind !== undefined && tool.kind !== 'tool' ? !config.enabledTools.includes('*') : !isEnabled(config, tool.name, mcpToolName(connection.name, tool.name))) continue;
        candidates.push({ server: connection.name, tool: tool.name });
        listed.set(JSON.stringify([connection.name, tool.name]), tool);
      }
    }
    const plan = planMcpToolNames(candidates);
    for (const collision of plan.collisions) {
      const { name, kept, dropped } = collision;
      this.#report(`collision|${name}|${dropped.server}|${dropped.tool}`, { type: 'collision', name, kept, dropped });
    }
    const desired = new Map<string, { ref: McpToolRef; listed: McpListedTool; connection: McpServerConnection }>();
    for (const { name, server, tool } of plan.assigned) {
      const ref = { server, tool };
      const existing = registry?.get(name);
      if (existing !== undefined && existing !== this.#registered.get(name)?.tool) {
        this.#report(`taken|${name}|${server}|${tool}`, { type: 'name-taken', name, dropped: ref });
        continue;
      }
      desired.set(name, { ref, listed: listed.get(JSON.stringify([server, tool]))!, connection: this.#connections.get(server)! });
    }

    const changes = new Map<string, { added: string[]; removed: string[]; updated: string[] }>();
    const changesOf = (server: string) => {
      let entry = changes.get(server);
      if (!entry) changes.set(server, (entry = { added: [], removed: [], updated: [] }));
      return entry;
    };
    for (const [name, entry] of [...this.#registered.entries()]) {
      const want = desired.get(name);
      if (want && want.ref.server === entry.ref.server && want.ref.tool === entry.ref.tool) continue;
      this.#unregister(name);
      changesOf(entry.ref.server).removed.push(name);
    }
    for (const [name, want] of desired) {
      const fingerprint = JSON.stringify([want.listed.kind, want.listed.uri, want.listed.description, want.listed.title, want.listed.inputSchema, want.listed.annotations]);
      const current = this.#registered.get(name);
      if (current && current.fingerprint === fingerprint) continue;
      const config = this.#configs.get(want.ref.server)!;
      let tool: McpTool | McpResourceTool | McpPromptTool;
      try {
        const Kind = want.listed.kind === 'resource' ? McpResourceTool : want.listed.kind === 'prompt' ? McpPromptTool : McpTool;
        tool = new Kind(name, want.listed, want.connection, config.toolTimeout * 1000);
        // An unusable schema (cyclic, unresolvable $ref, …) fails here, not on the model's first call.
        void tool.jsonSchema;
        tool.validateParams({});
        registry?.register(tool, { replace: current !== undefined });
      } catch (error) {
        if (current) {
          this.#unregister(name);
          changesOf(want.ref.server).removed.push(name);
        }
        this.#report(`skipped|${name}|${fingerprint}`, {
          type: 'tool-skipped',
          name,
          dropped: want.ref,
          reason: error instanceof Error ? error.message : String(error),
        });
        continue;
      }
      this.#registered.set(name, { ref: want.ref, fingerprint, tool });
      const bucket = changesOf(want.ref.server);
      (current ? bucket.updated : bucket.added).push(name);
    }
    for (const [server, change] of [...changes.entries()].sort(([a], [b]) => compareCodePoints(a, b))) {
      this.#emit({ type: 'tools-changed', server, ...change });
    }
  }

  #unregister(name: string): void {
    const entry = this.#registered.get(name);
    if (!entry) return;
    this.#registered.delete(name);
    const registry = this.#options.registry;
    // Only remove what is still ours: someone may have replaced it in the registry meanwhile.
    if (registry && registry.get(name) === entry.tool) registry.unregister(name);
  }

  #report(key: string, event: McpSourceEvent): void {
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.#emit(event);
  }

  #emit(event: McpSourceEvent): void {
    try {
      this.#options.onEvent?.(event);
    } catch {
      // A faulty listener must not break the source.
    }
  }
}

function isEnabled(config: McpServerConfig, raw: string, wrapped: string): boolean {
  const list = config.enabledTools;
  return list.includes('*') || list.includes(raw) || list.includes(wrapped);
}

/** Misassembled options are programmer errors: fail at construction, not at the first call. */
function checkOptions(options: McpToolSourceOptions): void {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError('McpToolSource needs an options object');
  const { registry, connect, connectTimeoutMs, onEvent } = options;
  if (registry !== undefined && !['register', 'unregister', 'get'].every((m) => typeof (registry as never)[m] === 'function')) {
    throw new ConfigurationError('McpToolSource: `registry` needs register(), unregister() and get() (a ToolRegistry fits)');
  }
  if (connect !== undefined && connect !== 'startup' && connect !== 'lazy') {
    throw new ConfigurationError(`McpToolSource: \`connect\` must be 'startup' or 'lazy', got ${JSON.stringify(connect)}`);
  }
  if (connectTimeoutMs !== undefined && !(typeof connectTimeoutMs === 'number' && connectTimeoutMs > 0)) {
    throw new ConfigurationError('McpToolSource: `connectTimeoutMs` must be a number > 0');
  }
  if (onEvent !== undefined && typeof onEvent !== 'function') {
    throw new ConfigurationError('McpToolSource: `onEvent` must be a function');
  }
}
