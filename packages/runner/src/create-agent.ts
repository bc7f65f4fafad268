import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { createUsageCalibrator, governReplyReserve } from '@nanobot/governor';
import { FileArtifactStore } from '@nanobot/governor/node';
import type { Governor, UsageCalibrator } from '@nanobot/governor';
import { ConfigurationError } from '@nanobot/schema';
import type { LLMProvider } from '@nanobot/schema';
import { replyReserveFor } from '@nanobot/providers';
import { ContextBuilder } from '@nanobot/context-builder';
import { ToolRegistry } from '@nanobot/registry';
import { Consolidator, JsonlSessionStore, MemoryStore } from '@nanobot/session';
import type { SessionStore } from '@nanobot/session';
import type { Tool } from '@nanobot/tools-core';
import { createBuiltinTools, createCronTool, ExecSessionManager } from '@nanobot/tools';
import type { BuiltinToolsOptions } from '@nanobot/tools';
import { AgentLoop } from './agent-loop.js';
import type { AgentLoopOptions, LoopContextBuilder } from './agent-loop.js';
import { AgentRunner } from './agent-runner.js';
import { runSettingsOf, type RunSettings } from './run-settings.js';
import { MessageBus } from './bus/message-bus.js';
import type { AgentBus } from './bus/agent-bus.js';
import type { TurnOutcome } from './bus/turn-outcome.js';
import { SubagentManager } from './subagent-manager.js';
import { CronService } from './cron-service.js';
import type { CronRun } from './cron-service.js';
import { JsonCronStore } from './json-cron-store.js';
import type { CronStore } from './json-cron-store.js';
import { cronReminder } from './runner-texts.js';

/**
 * Options of {@link createAgent}: the agent's own, plus the {@link RunSettings} every run of its
 * sessions gets (and its subagents', but for the main agent's `hooks`, `temperature` and
 * `maxTokens`). Only `workspace` and `provider` are required.
 */
export interface CreateAgentOptions extends Omit<RunSettings, 'calibrator'> {
  /** Directory the agent works in; file tools are confined to it unless `restrictToWorkspace` is false. */
  workspace: string;
  /** The model (any `LLMProvider`: OpenAI-compatible, Anthropic, Fallback, Scripted). */
  provider: LLMProvider;
  /**
   * Where the window comes from when `contextWindowTokens` is not set: the model's facts
   * (`ModelFactsCache` of @nanobot/providers, its file beside the sessions via
   * `JsonModelFactsStore`), looked up once per turn (memory-cached). They size every run's
   * governor (a `model_facts` event says where they came from) and the COMPACT stage's
   * consolidation; a failed lookup falls back and says so, never failing a turn.
   */
  modelFacts?: RunSettings['modelFacts'];
  /** Where sessions are stored (default `~/.nanobot/sessions/<hash of the workspace path>`). */
  sessionsDir?: string;
  /**
   * Scheduled jobs (`cron` tool): `true` or options turn them on. Jobs live in
   * `<sessionsDir>/cron/jobs.json` unless `dir` or a `store` says otherwise; several processes may
   * share one store (each occurrence fires once). A due job becomes a turn in the session that
   * created it, replying to its chat; it fires while the agent is started (`start()`), or through
   * `ask`-style direct turns when it is not.
   */
  cron?: boolean | { dir?: string; store?: CronStore; defaultTimezone?: string; pollMs?: number };
  /**
   * Where offloaded tool results go, outside the workspace: a `FileArtifactStore` there (unless
   * `governOptions.artifactStore` is given), which `read_file` may open as a read-only extra root
   * while `list_dir`, `find_files`, `grep` over the workspace and `exec`'s sandbox never see it.
   * Default `defaultArtifactsDir(sessionsDir)` when the agent opens its own session store, else
   * none (then `governOptions.artifactStore` decides); `false` for none. Inside the workspace →
   * `ConfigurationError`.
   */
  artifactsDir?: string | false;
  /** A ready session store (wins over `sessionsDir`), e.g. a `PostgresSessionStore`. */
  sessions?: SessionStore;
  /**
   * The bus the loop consumes and the `message` tool and subagents publish to (default a fresh
   * in-memory `MessageBus`). A `PostgresMessageBus` (with a `PostgresSessionStore` as `sessions`)
   * makes `start()` turn this agent into one worker of many sharing a database.
   */
  bus?: AgentBus;
  /** Confine file tools and exec to the workspace (default true). */
  restrictToWorkspace?: boolean;
  /** exec options, or false to leave exec out. */
  exec?: BuiltinToolsOptions['exec'];
  /** web_fetch / web_search options, or false to leave them out (default: on, no search backend). */
  web?: BuiltinToolsOptions['web'];
  /** More tools for the main agent (and for subagents when their scopes include `subagent`). */
  extraTools?: readonly Tool<any>[];
  /** Builds the system prompt; default a `ContextBuilder` on the workspace; false for a plain prompt. */
  contextBuilder?: LoopContextBuilder | false;
  /** System prompt used when `contextBuilder` is false. */
  systemPrompt?: string;
  /** Subagent settings, or false to leave the `spawn` tool out. */
  subagents?: false | { maxConcurrentPerSession?: number; maxIterations?: number };
  /** Sessions running turns at once (default 3). */
  maxConcurrentSessions?: number;
  /**
   * Learns how the governor's estimate relates to the billed `usage.inputTokens`, shared by the
   * agent and its subagents (see `RunSettings.calibrator`). Default: a fresh
   * `createUsageCalibrator()` (persist it with `agent.calibrator.toJSON()`); `false` for none.
   */
  calibrator?: UsageCalibrator | false;
  /**
   * COMPACT stage. Default: with `contextWindowTokens` set, a `Consolidator` (from
   * @nanobot/session) archives the oldest turns into `memory/history.jsonl` when the prompt
   * reaches the budget; `false` turns that off.
   */
  compact?: AgentLoopOptions['compact'] | false;
  onError?: AgentLoopOptions['onError'];
}

/** Options of {@link Agent.ask}. */
export interface AskOptions {
  channel?: string;
  chatId?: string;
  senderId?: string;
  /** Routes to this session instead of `<channel>:<chatId>`. */
  sessionKey?: string;
  media?: string[];
}

/** A wired agent: one loop, its bus, registries, sessions and subagents. */
export interface Agent {
  readonly bus: AgentBus;
  readonly loop: AgentLoop;
  readonly runner: AgentRunner;
  /**
   * The agent's one Governor (`runner.governor`): it carries every session's and subagent's cut
   * plan and memos by session key (`sessionState`, `forget`).
   */
  readonly governor: Governor;
  /** Tools of the main agent (scope `core`, plus `message` and `spawn`). */
  readonly tools: ToolRegistry;
  /** Tools of subagents (scope `subagent`: no `message`, no `spawn`). */
  readonly subagentTools: ToolRegistry;
  readonly subagents: SubagentManager | null;
  /** Background exec sessions of the agent and its subagents (null without exec). */
  readonly execSessions: ExecSessionManager | null;
  readonly sessions: SessionStore;
  /** The scheduler behind the `cron` tool, when `cron` is on (`start()` starts it). */
  readonly cron: CronService | null;
  /** The usage calibrator every request of the agent feeds and is sized by (null when off). */
  readonly calibrator: UsageCalibrator | null;
  /** Sends one message and resolves when its turn has ended (reply included). */
  ask(text: string, options?: AskOptions): Promise<TurnOutcome>;
  /**
   * Aborts the running turn of a session (default `cli:direct`), e.g. on Ctrl-C: the turn saves a
   * legal history and its `ask` promise settles. Returns how many tasks were stopped.
   */
  abort(sessionKey?: string): number;
  /** Starts consuming `bus` (for channel adapters that publish inbound messages themselves). */
  start(): void;
  /** Stops the loop, cancels subagents and kills background exec sessions; waits for every turn to save. */
  stop(): Promise<void>;
}

/** System prompt of an agent built with `contextBuilder: false` and no `systemPrompt`. */
const DEFAULT_SYSTEM_PROMPT = 'You are nanobot, a helpful assistant.';

/** The default sessions directory for a workspace: outside it, keyed by its absolute path. */
export function defaultSessionsDir(workspace: string): string {
  const id = createHash('sha256').update(resolve(workspace)).digest('hex').slice(0, 32);
  return join(homedir(), '.nanobot', 'sessions', id);
}

/**
 * The default artifacts directory for a sessions directory: `<sessionsDir>/artifacts`, so that
 * offloaded results live (and are cleaned up) next to the sessions that produced them, per
 * session bucket, and never in the workspace where searches would find them.
 */
export function defaultArtifactsDir(sessionsDir: string): string {
  return join(resolve(sessionsDir), 'artifacts');
}

/**
 * Wires a complete agent for a workspace: a `ToolRegistry` with the built-in tools (and the
 * `message` tool delivering through the bus, the `spawn` tool backed by a `SubagentManager`),
 * a subagent registry with the `subagent` scope, a `JsonlSessionStore`, a `ContextBuilder`,
 * the governor and an `AgentLoop` over a fresh `MessageBus`. Nothing starts until `ask` or
 * `start` is called. Throws a `ConfigurationError` (from the parts) for an unusable setup, e.g.
 * a sessions directory inside the workspace.
 */
export function createAgent(options: CreateAgentOptions): Agent {
  const workspace = resolve(options.workspace);
  const bus: AgentBus = options.bus ?? new MessageBus();
  const runner = new AgentRunner();
  // One per agent, not per runner: the runner stays stateless, and an agent's sessions and
  // subagents talk to the same models, so they learn together.
  const calibrator = options.calibrator === false ? null : (options.calibrator ?? createUsageCalibrator());
  const sessionsDir = options.sessionsDir ?? defaultSessionsDir(workspace);
  const sessions = options.sessions ?? new JsonlSessionStore({ dir: sessionsDir, workspace });
  const artifactsDir =
    options.artifactsDir === false ? undefined : options.artifactsDir !== undefined ? resolve(options.artifactsDir) : options.sessions ? undefined : defaultArtifactsDir(sessionsDir);
  if (artifactsDir !== undefined && (artifactsDir === workspace || artifactsDir.startsWith(workspace + sep))) {
    throw new ConfigurationError(`createAgent: artifactsDir ${artifactsDir} is inside the workspace; workspace searches would find every offloaded result`);
  }
  const governOptions: RunSettings['governOptions'] =
    artifactsDir !== undefined && !options.governOptions?.artifactStore
      ? { ...(options.governOptions ?? {}), artifactStore: new FileArtifactStore({ workspace: artifactsDir }) }
      : options.governOptions;
  // Declared once, passed whole to the loop (every session's runs) and the subagents.
  const settings: RunSettings = { ...runSettingsOf({ ...options, calibrator: undefined }), ...(governOptions ? { governOptions } : {}), ...(calibrator ? { calibrator } : {}) };
  // Subagents answer the agent, not the user: the main agent's hooks and reply shape stay its own
  // (a spawn request brings its temperature), and they may have their own iteration budget.
  const { hooks: _hooks, temperature: _temperature, maxTokens: _maxTokens, ...subagentSettings } = settings;
  const subagentIterations = options.subagents === false ? undefined : (options.subagents?.maxIterations ?? options.maxIterations);
  const tools = new ToolRegistry();
  const subagentTools = new ToolRegistry();
  // One manager for the core and subagent tools, so /stop and stop() reach every session.
  const execSessions = options.exec === false ? null : (options.exec?.sessions ?? new ExecSessionManager());
  const shared: BuiltinToolsOptions = {
    workspace,
    restrictToWorkspace: options.restrictToWorkspace ?? true,
    ...(artifactsDir !== undefined ? { extraReadDirs: [artifactsDir] } : {}),
    ...(execSessions ? { exec: { ...(options.exec ?? {}), sessions: execSessions } } : { exec: false }),
    ...(options.web !== undefined ? { web: options.web } : {}),
  };
  for (const tool of [...createBuiltinTools(shared), ...(options.extraTools ?? [])]) {
    if ((tool.scopes ?? ['core']).includes('subagent')) subagentTools.register(tool);
  }
  let loopRef: AgentLoop | null = null;
  const subagents =
    options.subagents === false
      ? null
      : new SubagentManager({
          ...subagentSettings,
          ...(subagentIterations ? { maxIterations: subagentIterations } : {}),
          bus,
          // A background result must reach its session whether or not `start()` consumes the bus:
          // with only `ask()`, nothing would ever read the announcement from the inbound queue.
          deliver: (message) => {
            if (!loopRef || loopRef.consuming) bus.publishInbound(message);
            else loopRef.dispatch(message);
          },
          provider: options.provider,
          tools: subagentTools,
          runner,
          ...(options.subagents?.maxConcurrentPerSession !== undefined ? { maxConcurrentPerSession: options.subagents.maxConcurrentPerSession } : {}),
        });
  const contextBuilder = options.contextBuilder === false ? undefined : (options.contextBuilder ?? new ContextBuilder({ workspace }));
  const systemPrompt = options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
  let compact: AgentLoopOptions['compact'] | undefined = options.compact === false ? undefined : options.compact;
  const consolidatorFor = (contextWindowTokens: number, maxTokens: number): Consolidator =>
    new Consolidator({
      provider: options.provider,
      store: sessions,
      memory: new MemoryStore({ workspace }),
      contextWindowTokens,
      maxTokens,
      ...(options.model !== undefined ? { model: options.model } : {}),
      tools: () => tools.definitions(),
      // The probe must count what the loop will send: the same system prompt (workspace files,
      // memory, skills) built the same way, or consolidation triggers too late.
      buildMessages: ({ session, history, currentMessage, sessionSummary }) => {
        if (!contextBuilder) return [{ role: 'system', content: systemPrompt }, ...history, { role: 'user', content: currentMessage }];
        const colon = session.key.indexOf(':');
        return contextBuilder.buildMessages(history, currentMessage, {
          channel: colon > 0 ? session.key.slice(0, colon) : null,
          sessionKey: session.key,
          currentRole: 'user',
          sessionSummary,
        });
      },
    });
  if (options.compact === undefined && options.contextWindowTokens !== undefined && options.contextWindowTokens > 0) {
    // The reply reserve the loop's governor uses (the model table's, else window-scaled), so
    // consolidation and governing size the same prompt with the same reserve (issue 29, item 5).
    const reserve = options.maxTokens ?? governReplyReserve({ contextWindowTokens: options.contextWindowTokens, model: options.model ?? options.provider.defaultModel, ...(governOptions?.compat !== undefined ? { compat: governOptions.compat } : {}) })!.tokens;
    const consolidator = consolidatorFor(options.contextWindowTokens, reserve);
    compact = async (session) => {
      await consolidator.maybeConsolidateByTokens(session);
    };
  } else if (options.compact === undefined && options.contextWindowTokens === undefined && options.modelFacts) {
    // The window is the model's: one consolidator per window the facts report (it rarely changes).
    const facts = options.modelFacts;
    const byWindow = new Map<string, Consolidator>();
    compact = async (session) => {
      // The lookup never rejects by contract; a source that does leaves compaction to the next turn.
      const known = await facts.lookup(options.model ?? options.provider.defaultModel).catch(() => null);
      if (known?.contextWindow === undefined) return;
      const maxTokens = options.maxTokens ?? replyReserveFor(known.contextWindow, known.maxOutput);
      const key = `${known.contextWindow}:${maxTokens}`;
      let consolidator = byWindow.get(key);
      if (!consolidator) byWindow.set(key, (consolidator = consolidatorFor(known.contextWindow, maxTokens)));
      await consolidator.maybeConsolidateByTokens(session);
    };
  }
  const loop = new AgentLoop({
    ...settings,
    bus,
    provider: options.provider,
    tools,
    sessions,
    runner,
    workspace,
    ...(contextBuilder ? { contextBuilder } : { systemPrompt }),
    ...(subagents ? { subagents } : {}),
    ...(execSessions ? { execSessions } : {}),
    ...(options.maxConcurrentSessions !== undefined ? { maxConcurrentSessions: options.maxConcurrentSessions } : {}),
    ...(compact ? { compact } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  loopRef = loop;
  const core = createBuiltinTools({ ...shared, messageSender: loop.messageSender, ...(subagents ? { subagentSpawner: subagents } : {}) });
  for (const tool of [...core, ...(options.extraTools ?? [])]) {
    if ((tool.scopes ?? ['core']).includes('core')) tools.register(tool);
  }
  let started = false;
  const cronOptions = options.cron === true ? {} : options.cron || null;
  const cron = cronOptions
    ? new CronService({
        store: cronOptions.store ?? new JsonCronStore(cronOptions.dir ?? join(sessionsDir, 'cron')),
        ...(cronOptions.pollMs !== undefined ? { pollMs: cronOptions.pollMs } : {}),
        onFire: async (run: CronRun) => {
          const message = {
            channel: run.job.channel,
            chatId: run.job.chatId,
            senderId: 'cron',
            content: cronReminder(run.job.message),
            sessionKeyOverride: run.job.sessionKey,
            metadata: { cron: { jobId: run.job.id, runId: run.runId, name: run.job.name } },
          };
          // A started agent consumes its bus (another process may take the turn); otherwise run it here.
          if (started) bus.publishInbound(message);
          else await loop.submit(message);
        },
        ...(options.onError ? { onError: (error: unknown) => options.onError?.(error, { sessionKey: '', stage: 'cron' }) } : {}),
      })
    : null;
  if (cron) tools.register(createCronTool({ scheduler: cron, ...(cronOptions?.defaultTimezone ? { defaultTimezone: cronOptions.defaultTimezone } : {}) }));
  return {
    bus,
    loop,
    runner,
    governor: runner.governor,
    tools,
    subagentTools,
    subagents,
    execSessions,
    sessions,
    calibrator,
    ask(text, ask = {}) {
      const channel = ask.channel ?? 'cli';
      return loop.submit({
        channel,
        chatId: ask.chatId ?? 'direct',
        senderId: ask.senderId ?? 'user',
        content: text,
        ...(ask.sessionKey !== undefined ? { sessionKeyOverride: ask.sessionKey } : {}),
        ...(ask.media !== undefined ? { media: ask.media } : {}),
      });
    },
    abort(sessionKey = 'cli:direct') {
      return loop.cancel(sessionKey);
    },
    cron,
    start() {
      started = true;
      loop.start();
      cron?.start();
    },
    async stop() {
      await cron?.stop();
      await subagents?.shutdown();
      await loop.stop();
      // loop.stop() already did; again for sessions a subagent started while it wound down.
      execSessions?.killAll();
    },
  };
}
