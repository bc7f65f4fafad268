import { failureOf, toolFailureRow, turnFailureRow, type LLMProvider, type Message } from '@nanobot/schema';
import type { Session, SessionStore } from '@nanobot/session';
import type { OutboundMessage as ToolOutboundMessage } from '@nanobot/tools';
import { AgentRunner } from './agent-runner.js';
import type { AgentRunResult, AgentRunSpec } from './run-spec.js';
import { runSettingsOf, type RunSettings } from './run-settings.js';
import { KeyedScheduler } from './keyed-scheduler.js';
import { inboundSessionKey, isUserInput } from './bus/bus-messages.js';
import type { AgentBus } from './bus/agent-bus.js';
import type { InboundMessage, OutboundMessage } from './bus/bus-messages.js';
import type { TurnOutcome } from './bus/turn-outcome.js';
import type { RunnerToolRegistry } from './runner-ports.js';
import { EMPTY_FINAL_RESPONSE_MESSAGE } from './runner-texts.js';
import { parseSlashCommand } from './slash-commands.js';
import { validateInbound } from './validate-inputs.js';
import type { SlashCommandSpec } from './slash-commands.js';

/** What the loop needs from a context builder (`ContextBuilder` from @nanobot/context-builder fits). */
export interface LoopContextBuilder {
  buildMessages(
    history: readonly Message[],
    currentMessage: string,
    options: {
      channel?: string | null;
      sessionKey?: string | null;
      media?: readonly string[] | null;
      currentRole?: 'user' | 'system' | 'assistant';
      sessionSummary?: { text: string; lastActive: string } | null;
    },
  ): Promise<Message[]>;
}

/** What the loop needs from the subagent manager (for `/stop`, `/new` and `/status`). */
export interface LoopSubagents {
  cancel(sessionKey: string): number;
  running(sessionKey?: string): number;
}

/**
 * What the loop needs from the exec session manager (`ExecSessionManager` from @nanobot/tools
 * fits): `/stop` and `/new` kill the session's background commands, `stop()` kills them all.
 * Both are synchronous, must not throw, and return how many sessions they killed.
 */
export interface LoopExecSessions {
  killSession(sessionKey: string): number;
  killAll(): number;
}

/** A message delivery requested by the `message` tool: @nanobot/tools' `OutboundMessage`. */
export type ToolDelivery = ToolOutboundMessage;

/**
 * Options of {@link AgentLoop}: the loop's own, plus the {@link RunSettings} it passes whole to
 * every run's {@link AgentRunSpec} (same defaults and contracts as there).
 */
export interface AgentLoopOptions extends RunSettings {
  /** The in-memory `MessageBus`, or any `AgentBus` (a `PostgresMessageBus` makes the loop a worker). */
  bus: AgentBus;
  provider: LLMProvider;
  /** The main agent's tools (scope `core`). */
  tools: RunnerToolRegistry;
  sessions: SessionStore;
  /** Builds `[system, ...history, current]`; without one the loop uses `systemPrompt`. */
  contextBuilder?: LoopContextBuilder;
  /** System prompt when no context builder is given. */
  systemPrompt?: string;
  runner?: AgentRunner;
  subagents?: LoopSubagents;
  /** Background exec sessions, killed on `/stop`, `/new` and `stop()`. */
  execSessions?: LoopExecSessions;
  /** Sessions running turns at once (0 or less: unlimited). Default 3, as the reference. */
  maxConcurrentSessions?: number;
  /** Workspace handed to tools. */
  workspace?: string;
  /**
   * COMPACT stage: e.g. `(s) => consolidator.maybeConsolidateByTokens(s).then(() => {})`. Awaited before history is
   * loaded; may mutate the session (it owns it during the turn); a throw is logged, not fatal.
   */
  compact?: (session: Session) => Promise<void>;
  /** Replayed history bounds for `session.getHistory`. */
  historyMaxMessages?: number;
  /** Called (not awaited) with unexpected errors (a failed save, a throwing compact step). Must not throw. */
  onError?: (error: unknown, context: { sessionKey: string; stage: string }) => void;
  /** Clock for `/status` uptime (called synchronously; must not throw). */
  now?: () => number;
}

interface ActiveTurn {
  controller: AbortController;
  pending: InboundMessage[];
  /** Messages injected into this turn (their `submit` promises settle with it). */
  injected: InboundMessage[];
  accepting: boolean;
  deliveredToOrigin: boolean;
  /** The latest `message` tool delivery to the turn's own chat (returned as the turn's reply). */
  delivery?: OutboundMessage;
}

/** The loop's slash commands. */
export const LOOP_COMMANDS: readonly SlashCommandSpec[] = Object.freeze([
  { name: 'new', description: 'Start a new conversation (clears this session)' },
  { name: 'stop', description: 'Stop the running task and its subagents', priority: true },
  { name: 'status', description: 'Show model, session size, running tasks and uptime', priority: true },
  { name: 'help', description: 'List the available commands' },
]);

function stripMeta(message: Message): Message {
  if (!('_meta' in message)) return message;
  const { _meta: meta, ...rest } = message;
  const marker = (meta as { runtime_context?: unknown } | undefined)?.runtime_context;
  return marker !== undefined && rest.role === 'user' ? { ...rest, _runtime_context: marker } : rest;
}

/**
 * The session turn machine: consumes the bus's inbound queue and runs each message through
 * RESTORE → COMPACT → COMMAND → BUILD → RUN → SAVE → RESPOND. Turns of one session run one after
 * another (in arrival order); different sessions run concurrently up to `maxConcurrentSessions`.
 * A message for a session whose turn is running is injected into that turn.
 */
export class AgentLoop {
  readonly bus: AgentBus;
  readonly #options: AgentLoopOptions;
  /** What every run gets, taken from the options once. */
  readonly #settings: RunSettings;
  readonly #runner: AgentRunner;
  readonly #scheduler: KeyedScheduler;
  readonly #active = new Map<string, ActiveTurn>();
  /** Sessions this loop has handled a message for (what `/status` calls active sessions). */
  readonly #seen = new Set<string>();
  readonly #tasks = new Set<Promise<unknown>>();
  readonly #startedAt: number;
  readonly #waiters = new Map<InboundMessage, ((outcome: TurnOutcome) => void)[]>();
  #consumer: AbortController | null = null;
  #stopping = false;
  /** Last request's context tokens per session (for `/status`). */
  readonly #lastContextTokens = new Map<string, number>();
  #consuming: Promise<void> | null = null;

  constructor(options: AgentLoopOptions) {
    this.#options = options;
    this.#settings = runSettingsOf(options);
    this.bus = options.bus;
    this.#runner = options.runner ?? new AgentRunner();
    this.#scheduler = new KeyedScheduler(options.maxConcurrentSessions ?? 3);
    this.#startedAt = (options.now ?? Date.now)();
  }

  /**
   * The `MessageSender` for the `message` tool: publishes to the bus and remembers a delivery to
   * the turn's own chat (its normal reply is then suppressed, as the reference does).
   */
  readonly messageSender = {
    send: async (message: ToolDelivery): Promise<void> => {
      const origin = message.origin;
      let delivered: ActiveTurn | null = null;
      if (origin.sessionKey !== undefined && message.channel === origin.channel && message.chatId === origin.chatId) {
        delivered = this.#active.get(origin.sessionKey) ?? null;
        if (delivered) delivered.deliveredToOrigin = true;
      }
      const out: OutboundMessage = {
        channel: message.channel,
        chatId: message.chatId,
        content: message.content,
        ...(message.media.length > 0 ? { media: [...message.media] } : {}),
        ...(message.buttons.length > 0 ? { buttons: message.buttons.map((row) => [...row]) } : {}),
        event: 'message_tool',
        ...(origin.sessionKey !== undefined ? { sessionKey: origin.sessionKey } : {}),
      };
      // The turn's answer to its own chat: what `submit`/`ask` return as the reply.
      if (delivered) delivered.delivery = out;
      this.bus.publishOutbound(out);
    },
  };

  /** Whether {@link start} was called: the loop consumes the bus's inbound queue. */
  get consuming(): boolean {
    return this.#consuming !== null;
  }

  /** Starts consuming the bus's inbound queue; idempotent. */
  start(): void {
    if (this.#consuming) return;
    const controller = new AbortController();
    this.#consumer = controller;
    this.#consuming = (async () => {
      for (;;) {
        let message: InboundMessage;
        try {
          message = await this.bus.consumeInbound(controller.signal);
        } catch {
          return;
        }
        try {
          const settle = this.bus.settleInbound?.bind(this.bus);
          if (settle) {
            void this.submit(message).then(
              (outcome) => settle(message, outcome),
              (error: unknown) => settle(message, { sessionKey: inboundSessionKey(message), result: null, reply: null, error }),
            );
          } else {
            this.dispatch(message);
          }
        } catch (error) {
          // A malformed message from a channel adapter must not stop the loop.
          this.#options.onError?.(error, { sessionKey: '', stage: 'dispatch' });
        }
      }
    })();
  }

  /**
   * Stops consuming, aborts running turns and waits until every turn has saved. Turns still
   * queued are run aborted: their messages are persisted and closed as interrupted, never lost.
   * Then every background exec session is killed.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#consumer?.abort();
    await this.#consuming;
    this.#consuming = null;
    for (const active of this.#active.values()) active.controller.abort();
    await this.idle();
    this.#options.execSessions?.killAll();
    this.#stopping = false;
  }

  /** Resolves when no turn is queued or running. */
  async idle(): Promise<void> {
    while (this.#tasks.size > 0) await Promise.allSettled([...this.#tasks]);
  }

  /** Sessions with a running turn. */
  get activeSessions(): string[] {
    return [...this.#active.keys()];
  }

  /**
   * Dispatches `message` and resolves when the turn that handled it has saved and responded
   * (for a message injected into a running turn: when that turn ends). Rejects only with a
   * `ValidationError` for a malformed message.
   */
  submit(message: InboundMessage): Promise<TurnOutcome> {
    try {
      validateInbound(message);
    } catch (error) {
      return Promise.reject(error);
    }
    const promise = new Promise<TurnOutcome>((resolve) => {
      const list = this.#waiters.get(message) ?? [];
      list.push(resolve);
      this.#waiters.set(message, list);
    });
    this.dispatch(message);
    return promise;
  }

  #settle(message: InboundMessage, outcome: TurnOutcome): void {
    const list = this.#waiters.get(message);
    if (!list) return;
    this.#waiters.delete(message);
    for (const resolve of list) resolve(outcome);
  }

  /**
   * Routes one inbound message (what `start()` does for each bus message; callable directly).
   * Priority commands run at once; a message for a session mid-turn is injected into that turn;
   * anything else queues a turn behind the session's earlier ones. Throws a `ValidationError`
   * (and does nothing) for a malformed message.
   */
  dispatch(message: InboundMessage): void {
    validateInbound(message);
    const key = inboundSessionKey(message);
    const user = isUserInput(message);
    if (user && message.channel !== 'system') {
      const parsed = parseSlashCommand(message.content, LOOP_COMMANDS);
      if (parsed.kind === 'command' && parsed.name === 'stop') {
        const reply = this.#respond(message, this.#stopSession(key), true);
        this.#settle(message, { sessionKey: key, result: null, reply });
        return;
      }
      if (parsed.kind === 'command' && parsed.name === 'status') {
        this.#track(
          this.#status(message, key).then(
            (reply) => this.#settle(message, { sessionKey: key, result: null, reply }),
            (error: unknown) => {
              this.#settle(message, { sessionKey: key, result: null, reply: null });
              throw error;
            },
          ),
        );
        return;
      }
      if (parsed.kind === 'command' && parsed.name === 'new') {
        this.#stopSession(key);
        return this.#schedule(key, message);
      }
    }
    // While a turn runs (and nothing else is queued for the session) every later message waits
    // in its pending list: follow-ups are injected into the turn, the rest (commands, messages
    // arriving after the last injection point) become the next turns in arrival order. Unlike
    // the reference, a long pending list never falls back to a separate task, which could
    // overtake the messages before it.
    const active = this.#active.get(key);
    if (active && this.#scheduler.pendingFor(key) === 1) {
      active.pending.push(message);
      return;
    }
    this.#schedule(key, message);
  }

  /** Whether the message is a slash command (not injectable into a running turn). */
  #isCommand(message: InboundMessage): boolean {
    return isUserInput(message) && message.channel !== 'system' && parseSlashCommand(message.content, LOOP_COMMANDS).kind !== 'text';
  }

  #schedule(key: string, message: InboundMessage): void {
    this.#track(this.#scheduler.run(key, () => this.#turn(key, message)));
  }

  #track(task: Promise<unknown>): void {
    const tracked = task.catch((error: unknown) => this.#options.onError?.(error, { sessionKey: '', stage: 'dispatch' }));
    this.#tasks.add(tracked);
    void tracked.finally(() => this.#tasks.delete(tracked));
  }

  /**
   * What `/stop` does, for hosts (a CLI's Ctrl-C): aborts the session's running turn (it saves a
   * legal history), cancels its subagents, kills its background exec sessions and drops its
   * pending follow-ups. Returns how many
   * tasks were stopped.
   */
  cancel(sessionKey: string): number {
    const text = this.#stopSession(sessionKey);
    const match = /^Stopped (\d+)/.exec(text);
    return match ? Number(match[1]) : 0;
  }

  #stopSession(key: string): string {
    let stopped = 0;
    const active = this.#active.get(key);
    if (active && !active.controller.signal.aborted) {
      active.controller.abort();
      // The reference empties the session's pending queue on /stop: the user asked to stop.
      for (const dropped of active.pending.splice(0)) this.#settle(dropped, { sessionKey: key, result: null, reply: null });
      stopped += 1;
    }
    stopped += this.#options.subagents?.cancel(key) ?? 0;
    // Subagents run their tools under the parent's session key, so this also ends theirs.
    stopped += this.#options.execSessions?.killSession(key) ?? 0;
    return stopped > 0 ? `Stopped ${stopped} task(s).` : 'No active task to stop.';
  }

  async #status(message: InboundMessage, key: string): Promise<OutboundMessage> {
    // What runs is read when the command arrives, not after the session loads: a /stop right
    // behind it may end the turn while the load awaits, and the reply must not contradict the
    // order the user sent them in.
    const running = `Running: ${this.#active.has(key) ? 'a turn is in progress' : 'idle'}; subagents: ${this.#options.subagents?.running(key) ?? 0}`;
    // The asking session counts: it is in use even though /status runs outside its turns.
    const activeSessions = `Active sessions: ${new Set([...this.#seen, key]).size} (${this.#active.size} with a turn running)`;
    const { session } = await this.#options.sessions.load(key);
    const uptimeS = Math.round(((this.#options.now ?? Date.now)() - this.#startedAt) / 1000);
    const lines = [
      '🐈 nanobot status',
      `Model: ${this.#options.model ?? this.#options.provider.defaultModel} (${this.#options.provider.name})`,
      `Session: ${key} — ${session.messages.length} messages`,
      ...this.#contextLine(key),
      running,
      activeSessions,
      `Uptime: ${uptimeS}s`,
    ];
    return this.#respond(message, lines.join('\n'), true);
  }

  #respond(message: InboundMessage, content: string, command: boolean): OutboundMessage {
    const out: OutboundMessage = {
      channel: message.channel,
      chatId: message.chatId,
      content,
      sessionKey: inboundSessionKey(message),
      ...(command ? { metadata: { ...(message.metadata ?? {}), render_as: 'text' } } : message.metadata ? { metadata: { ...message.metadata } } : {}),
    };
    this.bus.publishOutbound(out);
    return out;
  }

  #route(message: InboundMessage): { channel: string; chatId: string } {
    if (isUserInput(message) || message.channel !== 'system') return { channel: message.channel, chatId: message.chatId };
    const colon = message.chatId.indexOf(':');
    return colon > 0 ? { channel: message.chatId.slice(0, colon), chatId: message.chatId.slice(colon + 1) } : { channel: 'cli', chatId: message.chatId };
  }

  async #save(session: Session, key: string, stage: string): Promise<void> {
    try {
      await this.#options.sessions.save(session);
    } catch (error) {
      this.#options.onError?.(error, { sessionKey: key, stage });
      throw error;
    }
  }

  /** One turn, run under the session's serial slot. */
  async #turn(key: string, message: InboundMessage): Promise<void> {
    const options = this.#options;
    const user = isUserInput(message);
    const route = this.#route(message);
    const active: ActiveTurn = { controller: new AbortController(), pending: [], injected: [], accepting: true, deliveredToOrigin: false };
    // Turns still queued at shutdown run aborted: the message is recorded (and the turn closed
    // as interrupted) instead of being lost or keeping the process alive for model calls.
    if (this.#stopping) active.controller.abort();
    this.#active.set(key, active);
    this.#seen.add(key);
    let leftovers: InboundMessage[] = [];
    const outcome: TurnOutcome = { sessionKey: key, result: null, reply: null };
    try {
      // RESTORE
      const { session } = await options.sessions.load(key);
      if (repairTail(session)) await this.#save(session, key, 'restore');

      // COMPACT
      if (options.compact) {
        try {
          await options.compact(session);
        } catch (error) {
          options.onError?.(error, { sessionKey: key, stage: 'compact' });
        }
      }

      // COMMAND
      if (user && message.channel !== 'system') {
        const parsed = parseSlashCommand(message.content, LOOP_COMMANDS);
        if (parsed.kind === 'command' && parsed.name === 'new') {
          session.clear();
          await this.#save(session, key, 'command');
          outcome.reply = this.#respond(message, 'New session started.', true);
          return;
        }
        if (parsed.kind !== 'text') {
          const reply = parsed.kind === 'reject' ? parsed.reply : this.#help();
          session.addMessage('user', message.content, { _command: true });
          session.addMessage('assistant', reply, { _command: true });
          await this.#save(session, key, 'command');
          outcome.reply = this.#respond(message, reply, true);
          return;
        }
      }

      // BUILD
      const history = session.getHistory(options.historyMaxMessages ? { maxMessages: options.historyMaxMessages } : {});
      const initial = await this.#build(history, message, key, user, archivedSummary(session));
      const current = stripMeta(initial[initial.length - 1]);
      const persistedUser: Message = { ...current, timestamp: new Date().toISOString() };
      session.messages.push(persistedUser);
      session.updatedAt = persistedUser.timestamp as string;
      await this.#save(session, key, 'build');

      // RUN
      const spec: AgentRunSpec = {
        ...this.#settings,
        initialMessages: initial,
        provider: options.provider,
        tools: options.tools,
        sessionKey: key,
        concurrentTools: true,
        signal: active.controller.signal,
        toolContext: {
          sessionKey: key,
          channel: route.channel,
          chatId: route.chatId,
          senderId: message.senderId,
          ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
          ...(typeof message.metadata?.message_id === 'string' ? { messageId: message.metadata.message_id } : {}),
        },
        injections: (limit) => {
          if (!active.accepting) return [];
          const taken: InboundMessage[] = [];
          // Only leading non-command messages: a command and what follows it keep their order.
          while (taken.length < limit && active.pending.length > 0 && !this.#isCommand(active.pending[0])) taken.push(active.pending.shift()!);
          active.injected.push(...taken);
          return taken.map((m) => this.#injected(m));
        },
        ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
      };
      // In-flight persistence: at every checkpoint the messages appended so far are saved, so a
      // crash mid-turn keeps finished tool results (RESTORE answers calls left open).
      let persisted = 0;
      const persistUpTo = async (transcript: readonly Message[], from: number): Promise<void> => {
        const fresh = transcript.slice(from + persisted);
        if (fresh.length === 0) return;
        persisted += fresh.length;
        this.#appendMessages(session, fresh);
        await this.#save(session, key, 'checkpoint');
      };
      spec.checkpoint = (payload) => persistUpTo(payload.transcript, payload.appendedFrom);
      let result: AgentRunResult;
      try {
        result = await this.#runner.run(spec);
      } catch (error) {
        // A programmer error (throwing governor, critical hook): keep what the run appended.
        const partial = (error as { partialResult?: AgentRunResult }).partialResult;
        if (partial) this.#appendMessages(session, partial.messages.slice(partial.appendedFrom + persisted));
        repairTail(session);
        await this.#save(session, key, 'save');
        options.onError?.(error, { sessionKey: key, stage: 'run' });
        outcome.reply = this.#respond({ ...message, ...route }, 'Sorry, I encountered an error.', false);
        return;
      }
      active.accepting = false;
      leftovers = active.pending.splice(0);
      outcome.result = result;
      if (result.usage.contextTokens > 0) this.#lastContextTokens.set(key, result.usage.contextTokens);

      // SAVE
      this.#appendMessages(session, result.messages.slice(result.appendedFrom + persisted));
      if (result.stopReason === 'aborted') repairTail(session);
      await this.#save(session, key, 'save');

      // RESPOND
      if (result.stopReason === 'aborted') return;
      let content = result.finalContent ?? '';
      if (user && content.trim() === '') content = EMPTY_FINAL_RESPONSE_MESSAGE;
      if (!user) content = content.trim() === '' ? 'Background task completed.' : content;
      const suppressed = user && active.deliveredToOrigin && !result.hadInjections && result.stopReason !== 'empty_final_response';
      if (suppressed) {
        // Nothing more is published, but the caller still learns what the chat received.
        outcome.reply = active.delivery ?? null;
        return;
      }
      const out: OutboundMessage = {
        channel: route.channel,
        chatId: route.chatId,
        content,
        sessionKey: key,
        metadata: { ...(message.metadata ?? {}), _stop_reason: result.stopReason },
      };
      this.bus.publishOutbound(out);
      outcome.reply = out;
    } catch (error) {
      outcome.error = error;
      throw error;
    } finally {
      active.accepting = false;
      leftovers.push(...active.pending.splice(0));
      if (this.#active.get(key) === active) this.#active.delete(key);
      this.#settle(message, outcome);
      for (const injected of active.injected) this.#settle(injected, outcome);
      // Follow-ups that arrived too late to be injected become the session's next turns, in order.
      for (const next of leftovers) this.#schedule(key, next);
    }
  }

  #contextLine(key: string): string[] {
    const tokens = this.#lastContextTokens.get(key);
    if (tokens === undefined) return [];
    const window = this.#options.contextWindowTokens;
    return [window ? `Context: ${tokens} / ${window} tokens (${Math.round((100 * tokens) / window)}%)` : `Context: ${tokens} tokens`];
  }

  #help(): string {
    return ['🐈 nanobot commands:', ...LOOP_COMMANDS.map((c) => `/${c.name} — ${c.description}`)].join('\n');
  }

  async #build(history: Message[], message: InboundMessage, key: string, user: boolean, summary: { text: string; lastActive: string } | null): Promise<Message[]> {
    const options = this.#options;
    let initial: Message[];
    if (options.contextBuilder) {
      initial = await options.contextBuilder.buildMessages(history, message.content, {
        channel: this.#route(message).channel,
        sessionKey: key,
        media: message.media ?? null,
        currentRole: 'user',
        sessionSummary: summary,
      });
    } else {
      initial = [
        ...(options.systemPrompt !== undefined ? [{ role: 'system', content: options.systemPrompt }] : []),
        ...history,
        { role: 'user', content: message.content },
      ];
    }
    if (!user) {
      const last = initial[initial.length - 1];
      initial[initial.length - 1] = { ...last, ...this.#systemMarkers(message) };
    }
    return initial;
  }

  #systemMarkers(message: InboundMessage): Record<string, unknown> {
    const meta = message.metadata ?? {};
    return {
      _hidden_history: true,
      ...(typeof meta.injected_event === 'string' ? { injected_event: meta.injected_event } : {}),
      ...(typeof meta.subagent_task_id === 'string' ? { subagent_task_id: meta.subagent_task_id } : {}),
      sender_id: message.senderId,
    };
  }

  #injected(message: InboundMessage): Message {
    const base: Message = { role: 'user', content: message.content };
    return isUserInput(message) ? base : { ...base, ...this.#systemMarkers(message) };
  }

  #appendMessages(session: Session, messages: readonly Message[]): void {
    const stamp = new Date().toISOString();
    for (const message of messages) {
      const clean = stripMeta(message);
      // A blank assistant row is dropped, unless it is a failure row: that one is the record.
      if (clean.role === 'assistant' && !(clean.tool_calls && clean.tool_calls.length > 0) && failureOf(clean) === null) {
        const c = clean.content;
        if (c === null || c === undefined || (typeof c === 'string' && c.trim() === '') || (Array.isArray(c) && c.length === 0)) continue;
      }
      session.messages.push({ ...clean, timestamp: stamp });
    }
    session.updatedAt = stamp;
  }
}

/** The consolidator's archived summary of this session (`metadata._last_summary`), if any. */
function archivedSummary(session: Session): { text: string; lastActive: string } | null {
  const stored = session.metadata._last_summary as { text?: unknown; last_active?: unknown } | undefined;
  if (!stored || typeof stored.text !== 'string' || stored.text.trim() === '') return null;
  return { text: stored.text, lastActive: typeof stored.last_active === 'string' ? stored.last_active : session.updatedAt };
}

/**
 * Makes the end of a stored session legal and closed: answers tool calls left without results
 * (a crash mid-tools) and closes a user turn that never got a reply. Both are stored as failures
 * (`toolFailureRow`, `turnFailureRow('interrupted')` from @nanobot/schema), never as words of the
 * tool or the assistant. Returns whether it changed anything. Only appends.
 */
export function repairTail(session: Session): boolean {
  const messages = session.messages;
  let changed = false;
  // Find the last assistant with tool calls and answer whatever is missing right after it.
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (m.role === 'tool') continue;
    if (m.role === 'assistant' && m.tool_calls && m.tool_calls.length > 0) {
      const answered = new Set(messages.slice(i + 1).filter((x) => x.role === 'tool').map((x) => x.tool_call_id));
      if (messages.slice(i + 1).every((x) => x.role === 'tool')) {
        for (const call of m.tool_calls as unknown[]) {
          // A stored call may be anything (a hand-edited or foreign file): only a call with an id
          // can be answered; the governor strips the malformed ones from the model copy.
          const id = call && typeof call === 'object' ? (call as { id?: unknown }).id : undefined;
          if (typeof id !== 'string' || id === '') continue;
          const fn = (call as { function?: { name?: unknown } }).function;
          if (!answered.has(id)) {
            messages.push({ ...toolFailureRow({ id, name: typeof fn?.name === 'string' ? fn.name : '' }), timestamp: new Date().toISOString() });
            changed = true;
          }
        }
      }
    }
    break;
  }
  const last = messages[messages.length - 1];
  if (last && (last.role === 'user' || last.role === 'tool') && last._command !== true) {
    messages.push({ ...turnFailureRow('interrupted'), timestamp: new Date().toISOString() });
    changed = true;
  }
  if (changed) session.updatedAt = new Date().toISOString();
  return changed;
}

