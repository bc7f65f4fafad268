import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JsonSchema } from '@nanobot/schema';
import { raceSignal } from '@nanobot/tools-core';
import { McpConnectionError } from './mcp-errors.js';
import type { McpServerConfig } from './mcp-server-config.js';
import { mapCallToolResult, type McpToolOutput } from './map-call-tool-result.js';

/** Where a server connection stands. */
export type McpConnectionState = 'idle' | 'connecting' | 'connected' | 'disconnected' | 'failed' | 'closed';

/**
 * One tool as the server listed it (the fields this package uses). A server's resources and
 * prompts are listed here too, as read-only wrappers (the reference's): `kind: 'resource'` named
 * `resource_<name>` with its `uri`, `kind: 'prompt'` named `prompt_<name>` with the prompt's
 * arguments as string parameters.
 */
export interface McpListedTool {
  name: string;
  /** `tool` when absent. */
  kind?: 'tool' | 'resource' | 'prompt';
  /** The resource's URI (`kind: 'resource'`). */
  uri?: string;
  /** The prompt's name on the server (`kind: 'prompt'`). */
  promptName?: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: Record<string, unknown>;
}

/** Backoff for background reconnects after a server exits or the connection drops. */
export interface McpReconnectOptions {
  /** Attempts before the server is marked `failed` (a later call still tries once more). Default 5. */
  maxAttempts?: number;
  /** First delay; doubles per attempt. Default 250 ms. */
  initialDelayMs?: number;
  /** Cap on the delay. Default 10 s. */
  maxDelayMs?: number;
}

/** Lifecycle events of one server (also re-emitted by `McpToolSource`). */
export type McpConnectionEvent =
  | { type: 'connected'; server: string; toolCount: number; reconnect: boolean }
  | { type: 'connect-failed'; server: string; error: McpConnectionError; willRetry: boolean }
  | { type: 'disconnected'; server: string; reason: string }
  | { type: 'error'; server: string; error: Error };

/** Options of one server connection. */
export interface McpServerConnectionOptions {
  /** Implementation info sent in `initialize`. Default `{ name: 'nanobot', version: '0.1.0' }`. */
  clientInfo?: { name: string; version: string };
  /** Bound on spawn + `initialize` + the first `tools/list`. Default 30 s. */
  connectTimeoutMs?: number;
  /** Background reconnect policy, or `false` to reconnect only when the next call needs it. */
  reconnect?: McpReconnectOptions | false;
  /**
   * Receives the full tool list after every successful (re)connect and every re-list triggered by
   * `notifications/tools/list_changed`. Called synchronously, not awaited; must not throw (a throw
   * is reported as an `error` event); must not mutate the list (it is frozen).
   */
  onToolsChanged?: (tools: readonly McpListedTool[]) => void;
  /** Lifecycle events. Called synchronously, not awaited; a throw is swallowed. Must not mutate the event. */
  onEvent?: (event: McpConnectionEvent) => void;
}

/** Per-call options. */
export interface McpCallOptions {
  /** Aborting it cancels the request (a `notifications/cancelled` reaches the server). */
  signal?: AbortSignal;
  /** Per-call timeout in milliseconds. */
  timeoutMs: number;
}

const STDERR_TAIL_CHARS = 2000;

/**
 * One MCP server: spawns or dials it through the official SDK client, lists its tools, calls
 * them, re-lists on `notifications/tools/list_changed` and reconnects (with backoff in the
 * background, and on demand before a call) after the server exits or the connection drops.
 * `callTool` never throws: every failure is an error result the model can read.
 */
export class McpServerConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  private readonly options: McpServerConnectionOptions;
  private client: Client | undefined;
  private transport: Transport | undefined;
  private connecting: Promise<readonly McpListedTool[]> | undefined;
  private pending: { client: Client; transport: Transport } | undefined;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectAttempt = 0;
  private everConnected = false;
  private stderrTail = '';
  private currentTools: readonly McpListedTool[] = Object.freeze([]);
  private currentState: McpConnectionState = 'idle';

  constructor(name: string, config: McpServerConfig, options: McpServerConnectionOptions = {}) {
    this.name = name;
    this.config = config;
    this.options = options;
  }

  /** Current state. */
  get state(): McpConnectionState {
    return this.currentState;
  }

  /** The last tool list received (empty before the first connect). */
  get tools(): readonly McpListedTool[] {
    return this.currentTools;
  }

  /** Last characters the server wrote to stderr (stdio only), for diagnostics. */
  get stderr(): string {
    return this.stderrTail;
  }

  /**
   * Connects if not connected (sharing an attempt already under way) and resolves with the tool
   * list. Rejects with `McpConnectionError` when the server cannot be started or initialised.
   */
  async connect(): Promise<readonly McpListedTool[]> {
    if (this.currentState === 'closed') throw new McpConnectionError(this.name, `MCP server '${this.name}' is closed`);
    if (this.client && this.currentState === 'connected') return this.currentTools;
    if (this.connecting) return this.connecting;
    this.cancelReconnectTimer();
    const attempt = this.connectOnce();
    this.connecting = attempt;
    try {
      return await attempt;
    } finally {
      if (this.connecting === attempt) this.connecting = undefined;
    }
  }

  /**
   * Calls a tool. Never throws: timeouts, cancellation, server errors, `isError` results and a
   * dropped connection all come back as error results. A request that provably never reached the
   * server (connection refused, expired HTTP session) is retried once on a fresh connection;
   * one that may have run is not, since tools can have side effects.
   */
  async callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpToolOutput> {
    const { signal, timeoutMs } = options;
    for (let attempt = 0; ; attempt += 1) {
      if (signal?.aborted) return this.cancelled(tool);
      let client: Client;
      try {
        // A (re)connect can take up to the connect timeout; the caller may give up sooner.
        await (signal ? raceSignal(this.connect(), signal) : this.connect());
        if (signal?.aborted) return this.cancelled(tool);
        if (!this.client) throw new McpConnectionError(this.name, `MCP server '${this.name}' closed during connect`);
        client = this.client;
      } catch (error) {
        if (signal?.aborted) return this.cancelled(tool);
        return errorOutput(`Error: MCP server '${this.name}' is unavailable: ${messageOf(error)}`);
      }
      // The SDK adds an abort listener per request and never removes it; a per-call signal keeps
      // a long-lived caller signal (one per turn or session) from collecting them.
      const perCall = new AbortController();
      const forward = () => perCall.abort(signal?.reason);
      signal?.addEventListener('abort', forward, { once: true });
      try {
        const result = await client.callTool({ name: tool, arguments: args }, undefined, {
          signal: perCall.signal,
          timeout: timeoutMs,
        });
        return mapCallToolResult(result as Parameters<typeof mapCallToolResult>[0]);
      } catch (error) {
        if (signal?.aborted) return this.cancelled(tool);
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
          return errorOutput(
            `Error: MCP tool '${tool}' on server '${this.name}' timed out after ${formatSeconds(timeoutMs)}s`,
          );
        }
        if (this.isClosed()) {
          return errorOutput(`Error: MCP server '${this.name}' was shut down during the call to '${tool}'`);
        }
        if (isConnectionFailure(error)) {
          this.markBroken(client, messageOf(error));
          if (attempt === 0 && neverDelivered(error)) continue;
          return errorOutput(
            `Error: MCP server '${this.name}' disconnected during the call to '${tool}' (${describeDrop(error, this.stderrTail)}). ` +
              'The call may not have completed; the server is being reconnected for the next call.',
          );
        }
        if (error instanceof McpError) {
          return errorOutput(`Error: MCP server '${this.name}' rejected the call to '${tool}': ${error.message}`);
        }
        return errorOutput(`Error: MCP tool '${tool}' on server '${this.name}' failed: ${messageOf(error)}`);
      } finally {
        signal?.removeEventListener('abort', forward);
      }
    }
  }

  /**
   * Reads a resource as text, the reference's way: text contents joined by newlines, a binary one
   * as `[Binary resource: N bytes]`, `(no output)` when empty. Never throws: failures come back as
   * error results worded as the reference words them.
   */
  async readResource(uri: string, options: McpCallOptions): Promise<McpToolOutput> {
    return this.request('resource read', options, async (client, signal) => {
      const result = await client.readResource({ uri }, { signal, timeout: options.timeoutMs });
      const parts = result.contents.map((block) => ('text' in block && typeof block.text === 'string' ? block.text : 'blob' in block && typeof block.blob === 'string' ? `[Binary resource: ${block.blob.length} bytes]` : JSON.stringify(block)));
      return { content: parts.join('\n') || '(no output)', isError: false };
    });
  }

  /** Fills a prompt template: its messages' text joined by newlines. Never throws (see `readResource`). */
  async getPrompt(name: string, args: Record<string, string>, options: McpCallOptions): Promise<McpToolOutput> {
    return this.request('prompt call', options, async (client, signal) => {
      const result = await client.getPrompt({ name, arguments: args }, { signal, timeout: options.timeoutMs });
      const parts = result.messages.map((m) => {
        const content = m.content as { type?: string; text?: unknown };
        return content.type === 'text' && typeof content.text === 'string' ? content.text : JSON.stringify(content);
      });
      return { content: parts.join('\n') || '(no output)', isError: false };
    });
  }

  /** One read-only request (resources, prompts): connect if needed, run, word failures as the reference does. */
  private async request(what: string, options: McpCallOptions, run: (client: Client, signal: AbortSignal) => Promise<McpToolOutput>): Promise<McpToolOutput> {
    const { signal } = options;
    const cancelled = errorOutput(`(MCP ${what} was cancelled)`);
    for (let attempt = 0; ; attempt += 1) {
      if (signal?.aborted) return cancelled;
      let client: Client;
      try {
        await (signal ? raceSignal(this.connect(), signal) : this.connect());
        if (signal?.aborted || !this.client) return signal?.aborted ? cancelled : errorOutput(`(MCP ${what} failed: server closed)`);
        client = this.client;
      } catch (error) {
        if (signal?.aborted) return cancelled;
        return errorOutput(`Error: MCP server '${this.name}' is unavailable: ${messageOf(error)}`);
      }
      const perCall = new AbortController();
      const forward = (): void => perCall.abort(signal?.reason);
      signal?.addEventListener('abort', forward, { once: true });
      try {
        return await run(client, perCall.signal);
      } catch (error) {
        if (signal?.aborted) return cancelled;
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return errorOutput(`(MCP ${what} timed out after ${formatSeconds(options.timeoutMs)}s)`);
        if (isConnectionFailure(error)) {
          this.markBroken(client, messageOf(error));
          // Reads have no side effects: one retry on a fresh connection, as the reference.
          if (attempt === 0) continue;
          return errorOutput(`(MCP ${what} failed after retry: ${errorName(error)})`);
        }
        if (error instanceof McpError) return errorOutput(`(MCP ${what} failed: ${error.message.replace(/^MCP error -?\d+: /, "")} [code ${error.code}])`);
        return errorOutput(`(MCP ${what} failed: ${errorName(error)})`);
      } finally {
        signal?.removeEventListener('abort', forward);
      }
    }
  }

  /** Closes the connection (stdio: ends stdin, then SIGTERM/SIGKILL; HTTP: terminates the session). Idempotent. */
  async close(): Promise<void> {
    if (this.currentState === 'closed') return;
    this.currentState = 'closed';
    this.cancelReconnectTimer();
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    // Cut an attempt under way short (a server stuck starting would hold close() for the whole
    // connect timeout); it then sees the closed state and cleans up after itself.
    const pending = this.pending;
    if (pending) await shutdown(pending.client, pending.transport);
    await this.connecting?.catch(() => undefined);
    await shutdown(client, transport);
  }

  private async connectOnce(): Promise<readonly McpListedTool[]> {
    this.currentState = 'connecting';
    const reconnect = this.everConnected;
    const clientInfo = this.options.clientInfo ?? { name: 'nanobot', version: '0.1.0' };
    const client = new Client(clientInfo, { capabilities: {} });
    const transport = this.createTransport();
    const relist = async (): Promise<void> => {
      if (this.client === client) await this.refreshTools();
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, relist);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, relist);
    client.setNotificationHandler(PromptListChangedNotificationSchema, relist);
    client.onclose = () => this.handleClose(client, 'the server closed the connection');
    // Transport hiccups (a dropped HTTP notification stream the SDK retries, a stray line on stdout)
    // are not fatal; a dead connection shows up as onclose or as a failed request.
    client.onerror = (error) => {
      if (this.client !== client) return;
      this.emit({ type: 'error', server: this.name, error });
      // Without an event store on the server, a cut HTTP response stream never delivers its
      // answer: treat it as a dropped connection so pending calls fail now, not at their timeout.
      if (transport instanceof StreamableHTTPClientTransport && /SSE stream disconnected/.test(error.message)) {
        this.markBroken(client, error.message);
      }
    };
    const timeout = this.options.connectTimeoutMs ?? 30_000;
    let tools: McpListedTool[];
    this.pending = { client, transport };
    try {
      await client.connect(transport, { timeout });
      tools = await listEverything(client, timeout);
    } catch (error) {
      this.pending = undefined;
      await shutdown(client, transport);
      const failure = new McpConnectionError(
        this.name,
        // A server that was up and dropped did not fail to *start*: say what really happened.
        `MCP server '${this.name}' ${reconnect ? 'failed to reconnect' : 'failed to start'}: ${describeDrop(error, this.stderrTail)}`,
        { cause: error },
      );
      if (!this.isClosed()) this.currentState = 'failed';
      throw failure;
    }
    this.pending = undefined;
    if (this.isClosed()) {
      await shutdown(client, transport);
      throw new McpConnectionError(this.name, `MCP server '${this.name}' was closed while connecting`);
    }
    this.client = client;
    this.transport = transport;
    this.currentState = 'connected';
    this.everConnected = true;
    this.reconnectAttempt = 0;
    this.currentTools = freezeTools(tools);
    this.emit({ type: 'connected', server: this.name, toolCount: tools.length, reconnect });
    this.notifyTools();
    return this.currentTools;
  }

  private isClosed(): boolean {
    return this.currentState === 'closed';
  }

  private createTransport(): Transport {
    const config = this.config;
    if (config.transport === 'stdio') {
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: config.env,
        cwd: config.cwd,
        stderr: 'pipe',
      });
      this.stderrTail = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      });
      return transport;
    }
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
      // The notification stream is re-opened by reconnecting the whole client instead.
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
    });
  }

  private async refreshTools(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    const run = async () => {
      do {
        this.refreshAgain = false;
        const client = this.client;
        if (!client) return;
        try {
          const tools = await listEverything(client, this.options.connectTimeoutMs ?? 30_000);
          if (this.client !== client) return;
          this.currentTools = freezeTools(tools);
          this.notifyTools();
        } catch (error) {
          this.emit({ type: 'error', server: this.name, error: asError(error) });
          return;
        }
      } while (this.refreshAgain);
    };
    this.refreshing = run().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private handleClose(client: Client, reason: string): void {
    if (this.client !== client || this.currentState === 'closed') return;
    this.client = undefined;
    this.transport = undefined;
    this.currentState = 'disconnected';
    this.emit({ type: 'disconnected', server: this.name, reason: describeDrop(new Error(reason), this.stderrTail) });
    this.scheduleReconnect();
  }

  private markBroken(client: Client, reason: string): void {
    if (this.client !== client) return;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    this.currentState = 'disconnected';
    this.emit({ type: 'disconnected', server: this.name, reason });
    void shutdown(client, transport);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const policy = this.options.reconnect;
    if (policy === false || this.currentState === 'closed' || this.reconnectTimer) return;
    const maxAttempts = policy?.maxAttempts ?? 5;
    if (this.reconnectAttempt >= maxAttempts) {
      this.currentState = 'failed';
      return;
    }
    const initial = policy?.initialDelayMs ?? 250;
    const delay = Math.min(initial * 2 ** this.reconnectAttempt, policy?.maxDelayMs ?? 10_000);
    this.reconnectAttempt += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.currentState === 'closed' || this.client) return;
      this.connect().catch((error: unknown) => {
        const willRetry = this.reconnectAttempt < maxAttempts;
        this.emit({ type: 'connect-failed', server: this.name, error: asConnectionError(this.name, error), willRetry });
        this.scheduleReconnect();
      });
    }, delay);
    this.reconnectTimer.unref();
  }

  private cancelReconnectTimer(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
  }

  private notifyTools(): void {
    try {
      this.options.onToolsChanged?.(this.currentTools);
    } catch (error) {
      this.emit({ type: 'error', server: this.name, error: asError(error) });
    }
  }

  private emit(event: McpConnectionEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A faulty listener must not break the connection.
    }
  }

  private cancelled(tool: string): McpToolOutput {
    return errorOutput(`Error: MCP tool '${tool}' on server '${this.name}' was cancelled`);
  }
}

/** Tools, then (when the server offers them) resources and prompts as wrapper entries. */
async function listEverything(client: Client, timeout: number): Promise<McpListedTool[]> {
  const tools = await listAllTools(client, timeout);
  const capabilities = client.getServerCapabilities() ?? {};
  // Like the reference: a server whose resources or prompts cannot be listed still serves its tools.
  if (capabilities.resources) {
    const resources = await paginate((cursor) => client.listResources(cursor ? { cursor } : undefined, { timeout }), (page) => page.resources).catch(() => []);
    for (const r of resources) {
      tools.push({
        kind: 'resource',
        name: `resource_${r.name}`,
        uri: r.uri,
        description: `[MCP Resource] ${r.description || r.name}\nURI: ${r.uri}`,
        inputSchema: { type: 'object', properties: {}, required: [] },
      });
    }
  }
  if (capabilities.prompts) {
    const prompts = await paginate((cursor) => client.listPrompts(cursor ? { cursor } : undefined, { timeout }), (page) => page.prompts).catch(() => []);
    for (const p of prompts) {
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      for (const arg of p.arguments ?? []) {
        properties[arg.name] = arg.description ? { type: 'string', description: arg.description } : { type: 'string' };
        if (arg.required) required.push(arg.name);
      }
      tools.push({
        kind: 'prompt',
        name: `prompt_${p.name}`,
        promptName: p.name,
        description: `[MCP Prompt] ${p.description || p.name}\nReturns a filled prompt template that can be used as a workflow guide.`,
        inputSchema: { type: 'object', properties, required },
      });
    }
  }
  return tools;
}

/** Every item of a cursor-paginated list; a repeated cursor ends it (a server could loop forever). */
async function paginate<P extends { nextCursor?: string }, T>(fetch: (cursor: string | undefined) => Promise<P>, items: (page: P) => T[]): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await fetch(cursor);
    out.push(...items(page));
    cursor = page.nextCursor;
    if (cursor !== undefined) {
      if (seen.has(cursor)) break;
      seen.add(cursor);
    }
  } while (cursor !== undefined);
  return out;
}

async function listAllTools(client: Client, timeout: number): Promise<McpListedTool[]> {
  const tools: McpListedTool[] = [];
  let cursor: string | undefined;
  const seen = new Set<string>();
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout });
    for (const tool of page.tools) tools.push(tool as McpListedTool);
    cursor = page.nextCursor;
    // A server that repeats a cursor would loop forever.
    if (cursor !== undefined) {
      if (seen.has(cursor)) break;
      seen.add(cursor);
    }
  } while (cursor !== undefined);
  return tools;
}

function freezeTools(tools: McpListedTool[]): readonly McpListedTool[] {
  return Object.freeze(tools.map((tool) => deepFreeze(structuredClone(tool))));
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

async function shutdown(client: Client | undefined, transport: Transport | undefined): Promise<void> {
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    // Tell the server the session is over; bounded so a dead server cannot stall shutdown.
    await Promise.race([transport.terminateSession().catch(() => undefined), delay(1000)]);
  }
  await client?.close().catch(() => undefined);
  if (!client) await transport?.close().catch(() => undefined);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** True for errors that mean the connection (not the tool) failed. */
function isConnectionFailure(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  // A malformed result (schema parse failure) is the server's fault, not the connection's.
  if (error && typeof error === 'object' && 'issues' in error) return false;
  return true;
}

/** True when the request cannot have reached the tool: refused connection, unknown HTTP session. */
function neverDelivered(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return error.code === 404;
  const text = `${messageOf(error)} ${messageOf((error as { cause?: unknown })?.cause)}`;
  return /ECONNREFUSED|Not connected/.test(text);
}

function describeDrop(error: unknown, stderrTail: string): string {
  const tail = stderrTail.trim().split('\n').slice(-3).join(' | ');
  const cause = (error as { cause?: unknown })?.cause;
  const base = messageOf(error) + (cause instanceof Error && !messageOf(error).includes(cause.message) ? `: ${cause.message}` : '');
  return tail ? `${base}; stderr: ${tail}` : base;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return error === undefined ? '' : String(error);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function asConnectionError(server: string, error: unknown): McpConnectionError {
  return error instanceof McpConnectionError ? error : new McpConnectionError(server, messageOf(error), { cause: error });
}

function errorOutput(text: string): McpToolOutput {
  return { content: text, isError: true };
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return Number.isInteger(seconds) ? String(seconds) : seconds.toFixed(3).replace(/0+$/, '');
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.constructor.name : typeof error;
}
