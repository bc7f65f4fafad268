import { createHash, randomBytes } from 'node:crypto';
import { ContextBuilder, RUNTIME_CONTEXT_HEADER, detachRuntimeContext } from '@nanobot/context-builder';
import type { PromptSection, RuntimeContextMarker } from '@nanobot/context-builder';
import { withModelDefaults } from '@nanobot/governor';
import { FileArtifactStore } from '@nanobot/governor/node';
import type { ArtifactStore, GovernReport, ModelOptions } from '@nanobot/governor';
import { createAgent, defaultArtifactsDir } from '@nanobot/runner';
import type { ToolRegistry } from '@nanobot/registry';
import type { AgentLoop, GovernedRequest, LoopContextBuilder, AgentBus, RunnerEvent } from '@nanobot/runner';
import { retryWaitMessage } from '@nanobot/providers';
import { createEstimator, failureOf } from '@nanobot/schema';
import type { LLMProvider, Message, StoredFailure, TokenEstimator } from '@nanobot/schema';
import { JsonlSessionStore } from '@nanobot/session';
import type { SessionStore } from '@nanobot/session';
import type { ChatItem, InspectorSnapshot, SessionListItem, SessionView, StreamEvent, TurnBill } from '../shared/protocol.js';
import { seedPreparedSession } from './demo-fixtures.js';
import { inspectRequest } from './inspect-request.js';

/** Options of {@link AgentHost}. */
export interface AgentHostOptions {
  /** Where the tools work (file tools and exec are confined to it). */
  workspace: string;
  /** Where sessions are stored (must be outside the workspace); unused when `sessions` is given. */
  sessionsDir: string;
  /** A ready session store (e.g. PostgreSQL's); default a JSONL store in `sessionsDir`. */
  sessions?: SessionStore;
  /** The bus (e.g. PostgreSQL's, which makes this demo one worker of many); default in memory. */
  bus?: AgentBus;
  provider: LLMProvider;
  model?: string;
  /** The model's context window: enables snipping and compaction (and the budget bar's limit). */
  contextWindowTokens?: number;
  /** Tokens reserved for the reply. */
  maxTokens?: number;
  /** Include the exec tool (default true; confined to the workspace). */
  exec?: boolean;
  /** Include web_fetch / web_search (default true). */
  web?: boolean;
  /** Unexpected errors (a failed save, a sink bug). Called, not awaited; must not throw. */
  onError?: (error: unknown, where: string) => void;
}

/** A listener of one session's stream. Called synchronously, not awaited; must not throw. */
export type StreamListener = (event: StreamEvent) => void;

const CHANNEL = 'web';

/** The demo's switches that leave built-in tool groups out (see `startDemo`'s `exec` and `web`). */
const TOOL_SWITCHES = [
  { flag: '--no-exec', tools: ['exec', 'write_stdin', 'list_exec_sessions'] },
  { flag: '--no-web', tools: ['web_fetch', 'web_search'] },
] as const;
const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9:._-]{0,127}$/;

/** Whether `key` is a session key the server accepts in URLs. */
export function isValidSessionKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '[image]')).join('\n');
}

function userText(message: Message): string {
  const marker = message._runtime_context as RuntimeContextMarker | undefined;
  let text = textOf(marker ? detachRuntimeContext(message.content ?? null, marker) : (message.content ?? null));
  const cut = text.indexOf(RUNTIME_CONTEXT_HEADER);
  if (cut >= 0) text = text.slice(0, cut);
  return text.trim();
}

function firstLine(text: string, max = 140): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function failureNotice(failure: StoredFailure): string {
  if (failure.kind === 'interrupted') return 'Interrupted: no reply was generated.';
  return `The model request failed: no reply was generated${failure.detail ? ` (${firstLine(failure.detail)})` : ''}.`;
}

/** The chat column's items for a stored transcript. */
export function chatItems(messages: readonly Message[]): ChatItem[] {
  const items: ChatItem[] = [];
  const tools = new Map<string, Extract<ChatItem, { kind: 'tool' }>>();
  for (const m of messages) {
    if (m._command === true) {
      if (m.role === 'assistant') items.push({ kind: 'notice', text: textOf(m.content ?? null) });
      continue;
    }
    if (m.role === 'user') {
      if (m._hidden_history !== true) items.push({ kind: 'user', text: userText(m) });
    } else if (m.role === 'assistant') {
      // A turn that ended without a reply (stored as a failure, or as the texts older versions
      // stored as the assistant's words) is shown as what happened, not as a reply.
      const failure = failureOf(m);
      if (failure) {
        items.push({ kind: 'notice', text: failureNotice(failure) });
        continue;
      }
      const text = textOf(m.content ?? null).trim();
      if (text) items.push({ kind: 'assistant', text, ...(m._interrupted === true ? { interrupted: true } : {}) });
      for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
        const item: Extract<ChatItem, { kind: 'tool' }> = { kind: 'tool', callId: call.id, name: call.function?.name ?? '?', args: String(call.function?.arguments ?? ''), status: 'interrupted', detail: 'no result recorded' };
        tools.set(call.id, item);
        items.push(item);
      }
    } else if (m.role === 'tool' && typeof m.tool_call_id === 'string') {
      const item = tools.get(m.tool_call_id);
      if (!item) continue;
      const content = textOf(m.content ?? null);
      if (failureOf(m)) {
        item.detail = 'interrupted before it finished';
        continue;
      }
      item.status = content.startsWith('Error') ? 'error' : 'ok';
      item.detail = firstLine(content);
    }
  }
  return items;
}

function titleOf(metadata: Record<string, unknown>, messages: readonly Message[], key: string): string {
  if (typeof metadata.title === 'string' && metadata.title.trim()) return metadata.title;
  const first = messages.find((m) => m.role === 'user' && m._command !== true);
  const text = first ? firstLine(userText(first), 48) : '';
  return text || (messages.length === 0 ? 'New chat' : key);
}

/**
 * The agent behind the web demo: the runner's `createAgent` stack (built-in tools confined to the
 * workspace, JSONL sessions, the context builder, the governor with a file artifact store; no
 * subagents, no consolidation) plus what the page needs on top — live events per session fanned
 * out to listeners, an inspector snapshot of every governed request (the runner's `onGoverned`
 * observer, described by {@link inspectRequest}), and offloaded tool results served by id.
 */
export class AgentHost {
  readonly loop: AgentLoop;
  readonly sessions: SessionStore;
  readonly tools: ToolRegistry;
  readonly provider: LLMProvider;
  readonly #options: AgentHostOptions;
  readonly #listeners = new Map<string, Set<StreamListener>>();
  readonly #pending = new Map<string, InspectorSnapshot[]>();
  /** Per session: the last request's estimate, calibrated count and billed input (for the bill). */
  readonly #lastRequest = new Map<string, { estimated: number; calibrated: number; actual: number }>();
  readonly #lastSnapshot = new Map<string, InspectorSnapshot>();
  readonly #lastBill = new Map<string, TurnBill>();
  readonly #sections = new Map<string, PromptSection[]>();
  readonly #running = new Map<string, number>();
  readonly #artifacts = new Map<string, string>();
  readonly #artifactStore: ArtifactStore;
  readonly #inflight = new Set<Promise<unknown>>();
  /** Counts as the governor does for the model the runner sends to (its tokenizer from the model table). */
  readonly #estimator: TokenEstimator;
  #outbound: AbortController | null = new AbortController();

  constructor(options: AgentHostOptions) {
    this.#options = options;
    this.provider = options.provider;
    const modelOptions: ModelOptions = withModelDefaults<ModelOptions>({ model: options.model ?? options.provider.defaultModel });
    this.#estimator = createEstimator({ tokenizer: modelOptions.tokenizer ?? 'cl100k_base' });
    this.sessions = options.sessions ?? new JsonlSessionStore({ dir: options.sessionsDir, workspace: options.workspace });
    // Offloads live beside the sessions: workspace searches never see them, read_file can open them.
    const artifactsDir = defaultArtifactsDir(options.sessionsDir);
    const files = new FileArtifactStore({ workspace: artifactsDir });
    this.#artifactStore = {
      persist: (request) => {
        const location = files.persist(request);
        this.#artifacts.set(artifactId(location), location);
        return location;
      },
      read: (location) => files.read(location),
    };
    const builder = new ContextBuilder({ workspace: options.workspace });
    const contextBuilder: LoopContextBuilder = {
      buildMessages: async (history, current, buildOptions) => {
        // The sections are rebuilt from the same inputs, so they are exactly the prompt's parts.
        const sections = await builder.buildSystemPromptSections(buildOptions);
        if (buildOptions.sessionKey) this.#sections.set(buildOptions.sessionKey, sections);
        return builder.buildMessages(history, current, buildOptions);
      },
    };
    const agent = createAgent({
      workspace: options.workspace,
      provider: options.provider,
      sessions: this.sessions,
      ...(options.bus ? { bus: options.bus } : {}),
      contextBuilder,
      // What the governor does to an over-long session must stay visible: no archiving, and no
      // subagent requests the page could not show.
      compact: false,
      subagents: false,
      restrictToWorkspace: true,
      ...(options.exec === false ? { exec: false as const } : {}),
      ...(options.web === false ? { web: false as const } : {}),
      governOptions: { artifactStore: this.#artifactStore },
      artifactsDir,
      onGoverned: (request) => this.#onGoverned(request),
      events: (event) => this.#onEvent(event),
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.contextWindowTokens ? { contextWindowTokens: options.contextWindowTokens } : {}),
      ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
      onError: (error, context) => options.onError?.(error, `loop:${context.stage}`),
    });
    this.loop = agent.loop;
    this.tools = agent.tools;
    void this.#forwardOutbound(agent.bus);
  }

  #onGoverned(request: GovernedRequest): void {
    const key = request.sessionKey;
    if (key === undefined) return;
    try {
      const snapshot = inspectRequest({
        sessionKey: key,
        iteration: request.iteration,
        transcript: request.transcript,
        governed: request.messages,
        report: request.report as GovernReport,
        tools: request.tools,
        inflightStartIndex: request.inflightStartIndex,
        sections: this.#sections.get(key) ?? null,
        estimator: this.#estimator,
        artifactUrl: (location) => {
          const id = artifactId(location);
          return this.#artifacts.has(id) ? `/api/artifacts/${id}` : undefined;
        },
        toolSwitches: TOOL_SWITCHES,
      });
      // Runner events reach listeners asynchronously, in order; the observer runs synchronously
      // right after its request's `governance` event was queued. Emitting the snapshot there keeps
      // it in order with the turn's other events (a page resets its view on `turn_start`).
      const queue = this.#pending.get(key) ?? [];
      queue.push(snapshot);
      this.#pending.set(key, queue);
    } catch (error) {
      // The inspector is a view: failing to describe a request must never fail the request.
      this.#options.onError?.(error, 'inspect');
    }
  }

  #emit(key: string, event: StreamEvent): void {
    for (const listener of this.#listeners.get(key) ?? []) {
      try {
        listener(event);
      } catch (error) {
        this.#options.onError?.(error, 'listener');
      }
    }
  }

  #onEvent(event: RunnerEvent): void {
    const key = event.sessionKey;
    if (key === undefined) return;
    switch (event.type) {
      case 'turn_start':
        this.#emit(key, { type: 'turn_start' });
        break;
      case 'governance': {
        const snapshot = this.#pending.get(key)?.shift();
        if (snapshot) {
          this.#lastSnapshot.set(key, snapshot);
          this.#emit(key, { type: 'inspector', snapshot });
        }
        break;
      }
      case 'model_delta':
        this.#emit(key, { type: 'delta', text: event.delta });
        break;
      case 'tool_start':
        this.#emit(key, { type: 'tool_start', callId: event.callId, name: event.name, args: stringifyArgs(event.arguments) });
        break;
      case 'tool_end':
        this.#emit(key, { type: 'tool_end', callId: event.callId, name: event.name, status: event.status, detail: event.detail });
        break;
      case 'retry':
        // Provider waits and fallbacks are shown as they happen (the page would look stuck otherwise).
        if (event.reason === 'provider') {
          const wait = retryWaitMessage({ attempt: event.attempt ?? 1, delayMs: event.delayMs ?? 0 });
          this.#emit(key, { type: 'notice', text: `${wait}${event.detail ? ` (${event.detail})` : ''}` });
        }
        break;
      case 'fallback':
        this.#emit(key, { type: 'notice', text: `${event.from} failed (${event.reason}); trying ${event.to}` });
        break;
      case 'model_end':
        if (event.tokensEstimated !== undefined && event.tokensActual !== undefined) {
          this.#lastRequest.set(key, { estimated: event.tokensEstimated, calibrated: event.tokensCalibrated ?? event.tokensEstimated, actual: event.tokensActual });
        } else {
          this.#lastRequest.delete(key);
        }
        break;
      case 'turn_end': {
        this.#pending.delete(key);
        const { inputTokens, cachedTokens, outputTokens, cost } = event.usage;
        const lastRequest = this.#lastRequest.get(key);
        this.#lastRequest.delete(key);
        const bill: TurnBill = { inputTokens, cachedTokens, outputTokens, ...(cost ? { cost: cost.total } : {}), ...(lastRequest ? { lastRequest } : {}) };
        this.#lastBill.set(key, bill);
        this.#emit(key, { type: 'turn_end', stopReason: event.stopReason, finalContent: event.finalContent, error: event.error, bill });
        break;
      }
      default:
        break;
    }
  }

  async #forwardOutbound(bus: AgentBus): Promise<void> {
    // Drains the bus so replies never pile up; command answers and message-tool deliveries are
    // shown as notices (ordinary replies already arrived as streamed text and `turn_end`).
    const signal = this.#outbound?.signal;
    for (;;) {
      let message;
      try {
        message = await bus.consumeOutbound(signal);
      } catch {
        return;
      }
      const key = message.sessionKey ?? message.chatId;
      const isReply = message.metadata !== undefined && '_stop_reason' in message.metadata;
      if (!isReply) this.#emit(key, { type: 'notice', text: message.content });
    }
  }

  /** Adds a listener for one session's events; returns the unsubscribe function. */
  subscribe(key: string, listener: StreamListener): () => void {
    const set = this.#listeners.get(key) ?? new Set();
    set.add(listener);
    this.#listeners.set(key, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(key);
    };
  }

  /** Whether a turn of `key` is queued or running. */
  isRunning(key: string): boolean {
    return (this.#running.get(key) ?? 0) > 0;
  }

  /**
   * Sends user text to a session. Returns at once; the turn's progress arrives as events. A
   * message for a session mid-turn is injected into that turn (the loop's behaviour).
   */
  send(key: string, text: string): void {
    this.#running.set(key, (this.#running.get(key) ?? 0) + 1);
    this.#emit(key, { type: 'user', text });
    const task = this.loop
      .submit({ channel: CHANNEL, chatId: key, senderId: 'web-user', content: text, sessionKeyOverride: key })
      .catch((error: unknown) => this.#options.onError?.(error, 'submit'))
      .finally(() => {
        const left = (this.#running.get(key) ?? 1) - 1;
        if (left > 0) this.#running.set(key, left);
        else this.#running.delete(key);
        this.#inflight.delete(task);
      });
    this.#inflight.add(task);
  }

  /**
   * Stops a session's running turn (what `/stop` does, without its chat reply: the turn's end
   * says it once). Returns how many tasks were stopped (0: nothing was running).
   */
  stop(key: string): number {
    return this.loop.cancel(key);
  }

  /** Resolves when no turn is queued or running. */
  async idle(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
    await this.loop.idle();
  }

  /** The session as the page opens it (stored transcript, running state, last inspector view). */
  async view(key: string): Promise<SessionView> {
    const { session } = await this.sessions.load(key);
    return {
      key,
      title: titleOf(session.metadata, session.messages, key),
      items: chatItems(session.messages),
      running: this.isRunning(key),
      inspector: this.#lastSnapshot.get(key) ?? null,
      bill: this.#lastBill.get(key) ?? null,
    };
  }

  /** Every stored session, newest title first as stored keys sort. */
  async list(): Promise<SessionListItem[]> {
    const keys = await this.sessions.list();
    const out: SessionListItem[] = [];
    for (const key of keys) {
      if (!isValidSessionKey(key)) continue;
      const { session } = await this.sessions.load(key);
      out.push({ key, title: titleOf(session.metadata, session.messages, key), messageCount: session.messages.length, running: this.isRunning(key) });
    }
    return out;
  }

  /** Creates an empty session and returns its key. */
  async createSession(title?: string): Promise<string> {
    const key = `web:${randomBytes(4).toString('hex')}`;
    const { session } = await this.sessions.load(key);
    if (title) session.metadata = { ...session.metadata, title };
    await this.sessions.save(session);
    return key;
  }

  /** Creates the prepared long session (see `preparedSessionMessages`) and returns its key. */
  async createPreparedSession(): Promise<string> {
    const key = `web:prepared-${randomBytes(3).toString('hex')}`;
    await seedPreparedSession(this.sessions, key);
    return key;
  }

  /** An offloaded tool result by the id the inspector linked, or undefined. */
  artifact(id: string): string | undefined {
    const location = this.#artifacts.get(id);
    return location === undefined ? undefined : this.#artifactStore.read(location);
  }

  /** Stops the loop (running turns end as aborted and are saved). */
  async close(): Promise<void> {
    await this.loop.stop();
    await this.idle();
    this.#outbound?.abort();
    this.#outbound = null;
  }
}

function artifactId(location: string): string {
  return createHash('sha256').update(location).digest('hex').slice(0, 24);
}

function stringifyArgs(args: unknown): string {
  if (typeof args === 'string') return args;
  try {
    return JSON.stringify(args);
  } catch {
    return String(args);
  }
}
