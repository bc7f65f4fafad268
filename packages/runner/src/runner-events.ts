import type { LLMResponse, Message, Usage, UsageCost } from '@nanobot/schema';

/** Why a run stopped. `aborted` is ours: the caller's AbortSignal fired (the transcript is still legal). */
export type StopReason =
  | 'completed'
  | 'max_iterations'
  | 'error'
  | 'tool_error'
  | 'empty_final_response'
  | 'aborted';

/** Outcome of one tool call as the runner saw it. */
export type ToolEventStatus = 'ok' | 'error' | 'interrupted';

/** One tool call's record: the reference's `tool_events` entry plus the call id. */
export interface ToolEvent {
  callId: string;
  name: string;
  status: ToolEventStatus;
  /** Short one-line description (max ~120 code points), e.g. the error or the start of the output. */
  detail: string;
}

/** Fields every event carries so one sink can serve many sessions at once. */
interface EventBase {
  /** Id of the run (one `AgentRunner.run` call). */
  runId: string;
  /** Session the run belongs to, when the caller said. */
  sessionKey?: string;
}

/**
 * Everything a run reports, as one discriminated union. Events of one run are delivered to each
 * sink in exactly this order: `turn_start`, then per iteration `iteration_start`, `governance`,
 * `model_start`, any `model_delta`/`reasoning_delta`, `model_end`, then `tool_start`/`tool_end`
 * pairs, … and finally one `turn_end`.
 */
export type RunnerEvent =
  | (EventBase & { type: 'turn_start'; maxIterations: number; messageCount: number })
  | (EventBase & { type: 'iteration_start'; iteration: number })
  | (EventBase & {
      type: 'governance';
      iteration: number;
      /** The governor's report, unchanged (plain data a UI can draw). */
      report: unknown;
      /** Messages in the transcript vs in the governed copy sent to the model. */
      transcriptCount: number;
      requestCount: number;
    })
  | (EventBase & {
      type: 'token_count';
      iteration: number;
      /** Whether the provider's exact count (`countTokens`) answered; when not, the estimate served. */
      ok: boolean;
      model: string;
      /** The governor's estimate of the same request. */
      estimated: number;
      /** The provider's count (when `ok`). */
      inputTokens?: number;
      /** Why the count failed (when not `ok`). */
      error?: string;
    })
  | (EventBase & {
      /**
       * Where this run's window and reply reserve came from, when the run left them to the model's
       * facts (`AgentRunSpec.modelFacts`): the provider's models endpoint, a cached answer, the
       * model table, or nothing. Emitted once per run, before its first request.
       */
      type: 'model_facts';
      model: string;
      source: 'provider' | 'cache' | 'table' | 'default' | 'none';
      /** What the facts say (absent: unknown). */
      contextWindow?: number;
      maxOutput?: number;
      /** When the provider's answer was fetched (ms since the epoch; `provider` and `cache`). */
      fetchedAt?: number;
      /** The window and reply reserve this run governs with (absent: the governor's own defaults). */
      windowTokens?: number;
      replyTokens?: number;
      /** What went wrong on the way (endpoint failed, file unreadable, stale answer); the run goes on. */
      problem?: string;
    })
  | (EventBase & { type: 'model_start'; iteration: number; messageCount: number; toolCount: number; purpose: ModelRequestPurpose })
  | (EventBase & { type: 'model_delta'; iteration: number; delta: string })
  | (EventBase & { type: 'reasoning_delta'; iteration: number; delta: string })
  | (EventBase & {
      type: 'tool_call_delta';
      iteration: number;
      /** Position of the call in the response being streamed. */
      index: number;
      id?: string;
      name?: string;
      argumentsDelta?: string;
    })
  | (EventBase & {
      type: 'model_end';
      iteration: number;
      finishReason: string;
      usage: Usage;
      toolCallCount: number;
      /** The full response (content, tool calls, reasoning). */
      response: LLMResponse;
      /** What this request cost, when the model's prices are known (model table or `pricing`). */
      cost?: UsageCost;
      /** The governor's raw estimate of the prompt sent (when it made one). */
      tokensEstimated?: number;
      /** The count sizing used: calibrated by `AgentRunSpec.calibrator`, else the estimate. */
      tokensCalibrated?: number;
      /** `usage.inputTokens` as the provider reported it (absent when it reported none). */
      tokensActual?: number;
    })
  | (EventBase & {
      type: 'tool_start';
      iteration: number;
      callId: string;
      name: string;
      arguments: unknown;
    })
  | (EventBase & {
      type: 'tool_end';
      iteration: number;
      callId: string;
      name: string;
      status: ToolEventStatus;
      detail: string;
      /** The tool message content appended to the transcript. */
      content: Message['content'];
      durationMs: number;
    })
  | (EventBase & { type: 'tool_progress'; iteration: number; callId: string; name: string; data: unknown })
  | (EventBase & { type: 'message_appended'; message: Message; index: number })
  | (EventBase & {
      type: 'retry';
      iteration: number;
      /**
       * `empty_response`, `malformed_tool_calls`, `length`: the runner asks again. `provider`: the
       * provider waits `delayMs` before attempt `attempt + 1` after a failure (`detail` says
       * which, e.g. `rate_limit (429)`); `retryWaitMessage` from @nanobot/providers words it.
       */
      reason: 'empty_response' | 'malformed_tool_calls' | 'length' | 'provider';
      provider?: string;
      attempt?: number;
      delayMs?: number;
      detail?: string;
    })
  | (EventBase & {
      type: 'fallback';
      iteration: number;
      /** `provider:model` that failed and the one tried next. */
      from: string;
      to: string;
      /** Why, e.g. `server (503)`. */
      reason: string;
    })
  | (EventBase & { type: 'hook_error'; hook: string; error: string })
  | (EventBase & {
      type: 'turn_end';
      stopReason: StopReason;
      finalContent: string | null;
      error: string | null;
      usage: AccumulatedUsage;
      iterations: number;
      toolsUsed: string[];
    });

/** Why a model request was made (the UI can show retries differently). */
export type ModelRequestPurpose = 'turn' | 'finalize_empty' | 'malformed_retry' | 'finalize_max_iterations';

/** Usage summed over a run's requests; `contextTokens` is the last request's input tokens. */
export interface AccumulatedUsage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  /** Input tokens written to the prompt cache (Anthropic), part of `inputTokens`. */
  cacheCreationTokens: number;
  /** Output tokens spent on reasoning, part of `outputTokens`. */
  reasoningTokens: number;
  requestCount: number;
  contextTokens: number;
  /** The run's cost summed over requests whose prices were known; absent when none were. */
  cost?: UsageCost;
  /** Set when some input counts are the governor's estimates (the provider reported no usage). */
  estimated?: boolean;
}

/**
 * Receives events. May be async: the runner never awaits a sink inside the loop (a slow UI cannot
 * slow the agent down), but each sink gets events strictly one after another, in order, and
 * `run()` resolves only after every sink has taken `turn_end`. A sink that throws or rejects is
 * reported to `onSinkError` and keeps receiving later events. Sinks must not mutate events.
 */
export type EventSink = (event: RunnerEvent) => void | Promise<void>;
