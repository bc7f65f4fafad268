import type { Message, ToolTraitsByName } from '@nanobot/schema';
import type { ModelRequestPurpose } from './runner-events.js';
import type { ToolDefinition } from '@nanobot/schema';
import type { ToolRegistry } from '@nanobot/registry';
import type { TokenCalibration } from '@nanobot/governor';
import type { CutPlan } from '@nanobot/governor';
import type { GovernOptions, GovernTarget } from '@nanobot/governor';

/**
 * What the runner needs from a tool registry: `ToolRegistry` from @nanobot/registry, or anything
 * with the same four methods (e.g. a filtered view for one session's disabled tools). With
 * `toolTraits` the governor learns each tool's declared traits; without it no tool has any.
 */
export type RunnerToolRegistry = Pick<ToolRegistry, 'definitions' | 'get' | 'prepareCall' | 'execute'> & Partial<Pick<ToolRegistry, 'executePrepared' | 'toolTraits'>>;

/** Routing facts the runner puts on every tool call's `ToolContext`. */
export interface RunnerToolContext {
  sessionKey?: string;
  channel?: string;
  chatId?: string;
  senderId?: string;
  messageId?: string;
  workspace?: string;
  /** Free-form per-request data (model runtime, turn id, …) → `ctx.attributes`. */
  attributes?: Record<string, unknown>;
}

/** Options the runner passes to the governor on every request. */
export interface RunnerGovernOptions {
  contextWindowTokens?: number;
  maxOutputTokens?: number;
  contextBlockLimit?: number;
  maxToolResultChars: number;
  inflightStartIndex: number;
  compactedToolCallIds: Set<string>;
  tools: readonly ToolDefinition[];
  sessionKey?: string;
  /** The model the request goes to: the governor takes its window, reply size and tokenizer from the model table where unset. */
  model?: string;
  /** The run's usage calibrator (`AgentRunSpec.calibrator`), for sizing by the billed count. */
  calibrator?: TokenCalibration;
  /** The session's history cut plan from its previous request (the governor's `result.cutPlan`). */
  cutPlan?: CutPlan | null;
  /**
   * The API the request goes to: `governOptions.target` when set, else the provider's
   * `governorTarget` (its registry spec's), else absent (the governor's default).
   */
  target?: GovernTarget;
  /**
   * The tools' declared traits by name (`registry.toolTraits()`: the same frozen object until the
   * tool set changes), so that compaction and offload exemptions follow declarations, not names.
   * Absent when the registry does not provide them.
   */
  toolTraits?: ToolTraitsByName;
  /**
   * The server-side context management the request turns on (`RunSettings.contextManagement`,
   * sent as the provider's `context_management`): the governor reports it (`report.serverEditing`).
   */
  serverContextManagement?: GovernOptions['serverContextManagement'];
}

/**
 * The governor: returns a legal, budget-fitting copy of `messages` and a report. Must not mutate
 * `messages` (it may add ids to `options.compactedToolCallIds`, which is run-scoped state).
 * May throw: a throwing governor ends the run (rejects) with the transcript still legal. A
 * `cutPlan` it returns is passed back as `options.cutPlan` on the session's next request.
 */
export type GovernFn = (
  messages: readonly Message[],
  options: RunnerGovernOptions,
) => { messages: readonly Message[]; report: unknown; cutPlan?: CutPlan | null };

/**
 * One governed model request, as `onGoverned` observers see it. Every field is a snapshot taken
 * when the request was built: later appends to the run's transcript never show up in it.
 */
export interface GovernedRequest {
  readonly runId: string;
  readonly sessionKey?: string;
  readonly iteration: number;
  /** Why the request is made (a turn, or one of the retry/summary requests). */
  readonly purpose: ModelRequestPurpose;
  /** What was governed: the transcript (plus the retry prompt, for retry/summary requests). */
  readonly transcript: readonly Message[];
  /** The governed copy; the very array the provider receives. */
  readonly messages: readonly Message[];
  /** The governor's report (a `GovernReport` with the default governor). */
  readonly report: unknown;
  readonly tools: readonly ToolDefinition[];
  /** Index in `transcript` where the current turn's own messages start. */
  readonly inflightStartIndex: number;
}

/**
 * Observes every governed request (inspectors, audit logs, request dumps). Called synchronously
 * right after the governor and before the provider, for every request the run makes (turns,
 * retries, the max-iterations summary); not awaited. It must not mutate the request (the arrays
 * are the ones sent). A throw is isolated: it is reported as a `hook_error` event and the
 * request goes ahead unchanged.
 */
export type GovernedObserver = (request: GovernedRequest) => void;
