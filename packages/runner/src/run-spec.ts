import type { LLMProvider, Message, MessageContent, ResponseFormat, ResponseFormatInput, StructuredOutputError, ToolCall } from '@nanobot/schema';
import type { AccumulatedUsage, StopReason, ToolEvent } from './runner-events.js';
import type { RunnerToolContext, RunnerToolRegistry } from './runner-ports.js';
import type { RunSettings } from './run-settings.js';

/** Phases of a checkpoint (runner.md §7). */
export type CheckpointPhase = 'awaiting_tools' | 'tools_completed' | 'final_response';

/** In-flight state handed to `checkpoint` so a crash can be reconstructed. */
export interface CheckpointPayload {
  phase: CheckpointPhase;
  iteration: number;
  model: string;
  assistantMessage: Message | null;
  completedToolResults: Message[];
  pendingToolCalls: ToolCall[];
  /**
   * The live transcript (initial messages + everything appended so far). Read-only: a caller
   * persisting in-flight state appends `transcript.slice(appendedFrom)` beyond what it saved.
   */
  transcript: readonly Message[];
  /** Index where this run's own messages start. */
  appendedFrom: number;
}

/**
 * Inputs of one run: the agent's {@link RunSettings} plus what belongs to this run. Only
 * `initialMessages`, `provider` and `tools` are required.
 */
export interface AgentRunSpec extends RunSettings {
  /** The request so far (system prompt, history, the new user message). Never mutated. */
  initialMessages: readonly Message[];
  provider: LLMProvider;
  tools: RunnerToolRegistry;
  /** Run consecutive concurrency-safe calls in parallel. Default false (the loop passes true). */
  concurrentTools?: boolean;
  /** Stop the run at the first failing tool call (subagents). Default false. */
  failOnToolError?: boolean;
  /** Ask for a no-tools summary when the iteration budget runs out. Default true. */
  finalizeOnMaxIterations?: boolean;
  /** Final text when the model errors without content; null means "the error itself". */
  errorMessage?: string | null;
  /** Fallback text for max iterations; `{max_iterations}` is replaced. */
  maxIterationsMessage?: string;
  /** Aborting ends the run promptly with a legal transcript (stop reason `aborted`). */
  signal?: AbortSignal;
  /**
   * Pending user input to splice into the running turn; called at the drain points with the
   * maximum wanted (3). May be async; it must not throw (a throw is reported as `hook_error`).
   */
  injections?: (limit: number) => readonly Message[] | Promise<readonly Message[]>;
  /** Persist in-flight state; awaited; a throw is reported as `hook_error` and the run goes on. */
  checkpoint?: (payload: CheckpointPayload) => void | Promise<void>;
  /** Routing facts handed to every tool call (session, channel, chat, sender, workspace, …). */
  toolContext?: RunnerToolContext;
  /** The session the run belongs to: the agent's Governor keeps its cut plan under this key. */
  sessionKey?: string;
  runId?: string;
  /** Working directory for resolving workspace-violation targets. Default `toolContext.workspace` or cwd. */
  workspace?: string;
  /**
   * Shapes a successful tool result before it is appended (e.g. the governor's offload);
   * default: empty → `(<name> completed with no output)`. Pure; may not throw.
   */
  normalizeToolResult?: (content: MessageContent, call: { name: string; id: string }) => MessageContent;
  /**
   * The turn's final output type (structured output): the answer must be JSON matching this
   * schema (a `ResponseFormat`, or `{ name, schema }` with a zod or JSON Schema object schema).
   * Tools still run first; the validated value is the result's `output`. An answer that does not
   * match ends the run with stop reason `error` and `outputError` set (its `raw` text kept).
   */
  output?: ResponseFormat | ResponseFormatInput;
}

/** Outcome of one run. `messages` is the transcript: initial messages plus everything appended. */
export interface AgentRunResult {
  finalContent: string | null;
  messages: Message[];
  /** Index in `messages` where this run's own messages start (= initialMessages.length). */
  appendedFrom: number;
  toolsUsed: string[];
  usage: AccumulatedUsage;
  stopReason: StopReason;
  error: string | null;
  toolEvents: ToolEvent[];
  hadInjections: boolean;
  iterations: number;
  /** The validated final answer when the spec asked for an `output` type. */
  output?: unknown;
  /** Set when the spec asked for an `output` type and the final answer did not match it. */
  outputError?: StructuredOutputError;
}
