import { randomUUID } from 'node:crypto';
import { StructuredOutputError, TOOL_INTERRUPTED_NOTE, addCosts, codePointLength, costOfUsage, extractThink, lookupModel, replayFailures, toResponseFormat, toolFailureRow, turnFailureRow } from '@nanobot/schema';
import type {
  LLMProvider,
  LLMRequest,
  LLMResponse,
  Message,
  MessageContent,
  ModelPrices,
  ProviderNotice,
  ResponseFormat,
  ResponseFormatInput,
  ToolCall,
  ToolCallRequest,
  ToolDefinition,
  Usage,
  UsageCost,
} from '@nanobot/schema';
import type { Span, Tracer } from '@opentelemetry/api';
import { RunSpans, defaultTracer } from './runner-tracing.js';
import { buildAssistantMessage } from './build-assistant-message.js';
import { classifyViolation } from './classify-violation.js';
import { EventDispatcher } from './event-dispatcher.js';
import { repeatedExternalLookupError } from './external-lookup.js';
import { planToolBatches } from './plan-tool-batches.js';
import type { RunnerHooks, ToolOverride } from './runner-hooks.js';
import type { GovernedObserver, GovernFn, RunnerGovernOptions, RunnerToolContext, RunnerToolRegistry } from './runner-ports.js';
import { GOVERN_TARGETS, govern, type GovernTarget } from '@nanobot/governor';
import { cacheBreakpointsField } from './cache-breakpoints-of.js';
import type { CutPlan, GovernOptions, UsageCalibrator } from '@nanobot/governor';
import { replyReserveFor } from '@nanobot/providers';
import type { ModelFactsSource } from '@nanobot/providers';
import { observeUsage } from './usage-calibration-fields.js';
import { CutPlanStore } from './cut-plan-store.js';
import type { AccumulatedUsage, EventSink, ModelRequestPurpose, RunnerEvent, StopReason, ToolEvent, ToolEventStatus } from './runner-events.js';
import {
  DEFAULT_ERROR_MESSAGE,
  DEFAULT_MAX_ITERATIONS_MESSAGE,
  EMPTY_FINAL_RESPONSE_MESSAGE,
  FINALIZATION_RETRY_PROMPT,
  MALFORMED_TOOL_CALLS_PROMPT,
  MAX_ITERATIONS_FINALIZE_PROMPT,
  SSRF_NOTE,
  TOOL_ERROR_HINT,
  lengthRecoveryMessage,
  workspaceEscalationMessage,
} from './runner-texts.js';
import { validateRunSpec } from './validate-inputs.js';
import { contentText, isEmptyContent } from './tool-outcome.js';
import { ABORTED, createToolContext, raceSignal } from '@nanobot/tools-core';
import { toOpenAIToolCall } from './to-openai-tool-call.js';
import { workspaceTargetSignature } from './workspace-target-signature.js';

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

/** Inputs of one run. Only `initialMessages`, `provider` and `tools` are required. */
export interface AgentRunSpec {
  /** The request so far (system prompt, history, the new user message). Never mutated. */
  initialMessages: readonly Message[];
  provider: LLMProvider;
  tools: RunnerToolRegistry;
  /**
   * Builds the model copy before every request. Default: `govern` from @nanobot/governor with
   * the run's budget options plus `governOptions`.
   */
  govern?: GovernFn;
  /** Extra options for the default governor (artifact store for offload, token counter, …). */
  governOptions?: Omit<GovernOptions, Exclude<keyof RunnerGovernOptions, 'target'>>;
  /** Sees every governed request (transcript, governed copy, report); see {@link GovernedObserver}. */
  onGoverned?: GovernedObserver;
  /**
   * Learns how the governor's estimate relates to the provider's `usage.inputTokens` (e.g.
   * `createUsageCalibrator()` from @nanobot/governor, shared across runs): the runner feeds it
   * after every request with usage, and the governor sizes by its calibrated count. Called
   * synchronously; must not throw. Default none (`createAgent` makes one per agent).
   */
  calibrator?: UsageCalibrator | null;
  /**
   * Longest wait for the provider's exact count (`countTokens`, used with a calibrator on a
   * session's first request and while the calibrator knows nothing of the model), in ms
   * (default 15 000). A slower count is abandoned and the estimate serves.
   */
  countTokensTimeoutMs?: number;
  /**
   * Where the model's window and largest reply come from when `contextWindowTokens` is not set
   * (e.g. `ModelFactsCache` of @nanobot/providers: the provider's models endpoint, cached, with
   * the model table as fallback). Asked once per run before the first request; its answer
   * sizes the governor (window, and a reply reserve of at most 16 384 tokens or a quarter of
   * the window, unless `maxTokens` is set) and is reported as a `model_facts` event. A lookup
   * that fails never fails the run: the event says why and the governor's defaults serve.
   */
  modelFacts?: ModelFactsSource;
  model?: string;
  temperature?: number;
  maxTokens?: number;
  reasoningEffort?: string | null;
  contextWindowTokens?: number;
  contextBlockLimit?: number;
  /** Iterations (model calls that may run tools) before the run is cut short. Default 200. */
  maxIterations?: number;
  /** Per-result character budget handed to the governor. Default 16000. */
  maxToolResultChars?: number;
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
  /** Stream from the provider (deltas become `model_delta` events). Default true. */
  stream?: boolean;
  /** Wall clock per model request; 0 or less disables. Default 300000 (streaming: at least that). */
  llmTimeoutMs?: number;
  /** Aborting ends the run promptly with a legal transcript (stop reason `aborted`). */
  signal?: AbortSignal;
  hooks?: RunnerHooks | readonly RunnerHooks[];
  events?: EventSink | readonly EventSink[];
  /** Called (not awaited) when an event sink throws. Must not throw. */
  onSinkError?: (error: unknown, event: RunnerEvent) => void;
  /**
   * Pending user input to splice into the running turn; called at the drain points with the
   * maximum wanted (3). May be async; it must not throw (a throw is reported as `hook_error`).
   */
  injections?: (limit: number) => readonly Message[] | Promise<readonly Message[]>;
  /** Persist in-flight state; awaited; a throw is reported as `hook_error` and the run goes on. */
  checkpoint?: (payload: CheckpointPayload) => void | Promise<void>;
  /** Routing facts handed to every tool call (session, channel, chat, sender, workspace, …). */
  toolContext?: RunnerToolContext;
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
  /**
   * Prices for the cost in usage and events (USD per million tokens). Default: looked up in the
   * model table by the model that answered; `false`: no cost.
   */
  pricing?: ModelPrices | false;
  /**
   * OpenTelemetry tracer for the run's spans (turn, model calls, tool calls, governance). Default:
   * the global tracer, a no-op unless an OpenTelemetry SDK is registered; `false`: none.
   */
  tracer?: Tracer | false;
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

const noop = (): void => undefined;
const EXECUTABLE_FINISH = new Set(['tool_calls', 'function_call', 'stop']);
const NON_EMPTY_RETRY_FINISH = new Set(['error', 'length', 'refusal', 'content_filter']);
const MAX_INJECTIONS_PER_DRAIN = 3;
const MAX_INJECTION_CYCLES = 5;
const MAX_LENGTH_SEGMENTS = 3;
const LENGTH_TAIL_CHARS = 64;
const DEFAULT_TIMEOUT_MS = 300_000;

class HookFailure extends Error {
  constructor(readonly hook: string, readonly original: unknown) {
    super(`hook ${hook} failed: ${describeError(original)}`);
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function flattenDetail(text: string, max: number): string {
  const flat = text.replace(/[\r\n]+/g, ' ').trim();
  return codePointLength(flat) > max ? Array.from(flat).slice(0, max).join('') : flat;
}

function successDetail(content: MessageContent): string {
  const flat = contentText(content).replace(/[\r\n]+/g, ' ').trim();
  if (flat === '') return '(empty)';
  const chars = Array.from(flat);
  return chars.length > 120 ? `${chars.slice(0, 120).join('')}...` : flat;
}

function lastChars(text: string, n: number): string {
  const chars = Array.from(text);
  return chars.slice(Math.max(0, chars.length - n)).join('');
}

function emptyUsage(): AccumulatedUsage {
  return { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheCreationTokens: 0, reasoningTokens: 0, requestCount: 0, contextTokens: 0 };
}

function userContentNonEmpty(message: Message): boolean {
  const content = message.content;
  if (typeof content === 'string') return content.trim() !== '';
  return Array.isArray(content) && content.length > 0;
}

interface CallOutcome {
  content: MessageContent;
  status: ToolEventStatus;
  detail: string;
  /** Text of a failure that ends the run when `failOnToolError` is on. */
  fatal: string | null;
  durationMs: number;
}

type ModelOutcome =
  | { kind: 'response'; response: LLMResponse; errorText: string | null; partial: string }
  | { kind: 'aborted'; partial: string };

/** Mutable state of one run; lives only inside `run()`. */
class RunState {
  readonly transcript: Message[];
  readonly usage = emptyUsage();
  readonly toolEvents: ToolEvent[] = [];
  readonly toolsUsed: string[] = [];
  readonly lookupCounts = new Map<string, number>();
  readonly violationCounts = new Map<string, number>();
  readonly compactedToolCallIds = new Set<string>();
  /** The governor's planned cache boundaries of each governed request (keyed by the array sent). */
  readonly cacheBoundaries = new WeakMap<readonly Message[], unknown>();
  /** The history cut plan of a run without a session key (with one, the runner keeps it). */
  cutPlan: CutPlan | null = null;
  readonly lengthSegments: string[] = [];
  emptyRetries = 0;
  injectionCycles = 0;
  /** The governor's estimate of the last request's prompt tokens, when it made one. */
  lastPromptEstimate: number | null = null;
  /** The calibrated count of that request (what sizing used), when the governor made one. */
  lastPromptCalibrated: number | null = null;
  /** An exact count failed in this run: the estimate serves for the rest of it. */
  exactCountFailed = false;
  /** The window and reply reserve the governor sizes with (the spec's, or the model's facts). */
  windowTokens: number | undefined;
  replyTokens: number | undefined;
  /** Tool-call ids present in the transcript (built on first use). */
  usedCallIds: Set<string> | null = null;
  hadInjections = false;
  iteration = 0;
  finalContent: string | null = null;
  stopReason: StopReason = 'completed';
  error: string | null = null;
  readonly outputFormat: ResponseFormat | undefined;
  output: unknown = undefined;
  outputError: StructuredOutputError | undefined;
  readonly spans: RunSpans | null;

  constructor(
    readonly spec: AgentRunSpec,
    readonly runId: string,
    readonly events: EventDispatcher,
    readonly signal: AbortSignal,
  ) {
    this.transcript = [...spec.initialMessages];
    this.windowTokens = spec.contextWindowTokens;
    this.replyTokens = spec.maxTokens;
    this.outputFormat = spec.output === undefined ? undefined : 'type' in spec.output && spec.output.type === 'json_schema' ? spec.output : toResponseFormat(spec.output as ResponseFormatInput);
    const tracer = spec.tracer === false ? null : (spec.tracer ?? defaultTracer());
    this.spans = tracer === null ? null : new RunSpans(tracer, { runId, sessionKey: spec.sessionKey, provider: spec.provider.name, model: spec.model ?? spec.provider.defaultModel });
  }

  emit(event: RunnerEvent): void {
    if (!this.events.empty) this.events.emit(event);
  }

  base(): { runId: string; sessionKey?: string } {
    return this.spec.sessionKey === undefined ? { runId: this.runId } : { runId: this.runId, sessionKey: this.spec.sessionKey };
  }

  append(message: Message): void {
    this.transcript.push(message);
    this.emit({ ...this.base(), type: 'message_appended', message, index: this.transcript.length - 1 });
  }
}

/**
 * Runs one agent turn: for up to `maxIterations` it governs a copy of the transcript, asks the
 * model (streaming), runs the requested tools in safe batches and appends the results, until the
 * model answers. One instance may run many sessions at once; between runs it keeps only each
 * session's history cut plan (in memory, by session key), so a session's next turn re-applies
 * the previous request's cut and its prompt prefix stays cacheable.
 */
export class AgentRunner {
  readonly #cutPlans = new CutPlanStore();
  /** Sessions whose first request was counted exactly (runs without a session count their own first). */
  readonly #countedSessions = new Set<string>();

  /**
   * Runs the turn. Never rejects for model-side failures (they end in a result with a stop
   * reason); rejects only for programmer errors (a throwing governor, a critical hook).
   * Even then, and on abort, the transcript in the result is legal: every tool call answered.
   * A misassembled spec rejects with a `ConfigurationError` before anything runs.
   */
  async run(spec: AgentRunSpec): Promise<AgentRunResult> {
    validateRunSpec(spec);
    const runId = spec.runId ?? randomUUID();
    const sinks = spec.events === undefined ? [] : typeof spec.events === 'function' ? [spec.events] : [...(spec.events as readonly EventSink[])];
    const events = new EventDispatcher(sinks, spec.onSinkError);
    const local = new AbortController();
    const forward = (): void => local.abort(spec.signal?.reason);
    if (spec.signal?.aborted) local.abort(spec.signal.reason);
    else spec.signal?.addEventListener('abort', forward, { once: true });
    const state = new RunState(spec, runId, events, local.signal);
    const maxIterations = spec.maxIterations ?? 200;
    state.emit({ ...state.base(), type: 'turn_start', maxIterations, messageCount: state.transcript.length });
    let thrown: unknown = null;
    try {
      await this.#loop(state, maxIterations);
    } catch (error) {
      thrown = error;
      state.stopReason = 'error';
      state.error = error instanceof HookFailure ? error.message : `Error: ${describeError(error)}`;
      state.finalContent = state.finalContent ?? null;
    } finally {
      spec.signal?.removeEventListener('abort', forward);
    }
    state.spans?.end({ stopReason: state.stopReason, error: state.error, inputTokens: state.usage.inputTokens, outputTokens: state.usage.outputTokens, cost: state.usage.cost?.total });
    state.emit({
      ...state.base(),
      type: 'turn_end',
      stopReason: state.stopReason,
      finalContent: state.finalContent,
      error: state.error,
      usage: { ...state.usage },
      iterations: state.iteration,
      toolsUsed: [...state.toolsUsed],
    });
    await events.flush();
    if (thrown !== null) {
      if (thrown instanceof Error) (thrown as Error & { partialResult?: AgentRunResult }).partialResult = this.#result(state);
      throw thrown;
    }
    return this.#result(state);
  }

  #result(state: RunState): AgentRunResult {
    return {
      finalContent: state.finalContent,
      messages: state.transcript,
      appendedFrom: state.spec.initialMessages.length,
      toolsUsed: state.toolsUsed,
      usage: state.usage,
      stopReason: state.stopReason,
      error: state.error,
      toolEvents: state.toolEvents,
      hadInjections: state.hadInjections,
      iterations: state.iteration,
      ...(state.output !== undefined ? { output: state.output } : {}),
      ...(state.outputError !== undefined ? { outputError: state.outputError } : {}),
    };
  }

  async #loop(state: RunState, maxIterations: number): Promise<void> {
    const { spec } = state;
    await this.#modelFacts(state);
    while (state.iteration < maxIterations) {
      if (state.signal.aborted) return this.#finishAborted(state, '');
      const iteration = state.iteration;
      state.iteration += 1;
      state.emit({ ...state.base(), type: 'iteration_start', iteration });
      const tools = spec.tools.definitions();
      let governed = this.#govern(state, state.transcript, tools, iteration, 'turn');
      if (await this.#exactCount(state, governed, tools, iteration)) governed = this.#govern(state, state.transcript, tools, iteration, 'turn');
      await this.#hook(state, 'beforeModel', (h) => h.beforeModel?.({ runId: state.runId, iteration, messages: governed, tools, sessionKey: spec.sessionKey }));
      let outcome = await this.#requestWithMalformedRecovery(state, governed, tools, iteration);
      if (outcome.kind === 'aborted') return this.#finishAborted(state, outcome.partial);
      let response = outcome.response;
      await this.#hook(state, 'afterModel', (h) => h.afterModel?.({ runId: state.runId, iteration, response, sessionKey: spec.sessionKey }));

      const { content: rawClean, reasoning } = this.#split(response);

      // Tool path.
      if (response.toolCalls.length > 0 && EXECUTABLE_FINISH.has(response.finishReason)) {
        const requests = this.#uniqueIds(state, response.toolCalls);
        const calls = requests.map(toOpenAIToolCall);
        const assistant = buildAssistantMessage({
          content: rawClean,
          toolCalls: calls,
          reasoningContent: reasoning,
          thinkingBlocks: response.thinkingBlocks ?? null, providerFields: response.messageFields ?? null,
        });
        state.append(assistant);
        await this.#checkpoint(state, { phase: 'awaiting_tools', iteration, model: this.#model(spec), assistantMessage: assistant, completedToolResults: [], pendingToolCalls: calls });
        const { results, fatal, abortedDuring, thrown } = await this.#runTools(state, requests, calls, iteration);
        for (const message of results) state.append(message);
        if (thrown !== null) throw thrown;
        if (abortedDuring) return this.#finishAborted(state, '');
        if (fatal !== null) {
          state.error = fatal;
          state.finalContent = fatal;
          state.stopReason = 'tool_error';
          state.append({ role: 'assistant', content: fatal });
          if (await this.#drainInjections(state)) continue;
          return;
        }
        await this.#checkpoint(state, { phase: 'tools_completed', iteration, model: this.#model(spec), assistantMessage: assistant, completedToolResults: results, pendingToolCalls: [] });
        state.emptyRetries = 0;
        state.lengthSegments.length = 0;
        await this.#drainInjections(state);
        continue;
      }

      let clean = await this.#finalize(state, rawClean);
      const finish = response.finishReason;

      // Empty answer: one silent retry, then one request without tools.
      if (!NON_EMPTY_RETRY_FINISH.has(finish) && clean.trim() === '') {
        state.emptyRetries += 1;
        if (state.emptyRetries === 1) {
          state.emit({ ...state.base(), type: 'retry', iteration, reason: 'empty_response' });
          continue;
        }
        // Governed again with the prompt in place: appending to the governed copy could push a
        // request that was exactly at the budget over it.
        const retryMessages = this.#govern(state, [...state.transcript, { role: 'user', content: FINALIZATION_RETRY_PROMPT }], [], iteration, 'finalize_empty');
        outcome = await this.#request(state, retryMessages, [], iteration, 'finalize_empty');
        if (outcome.kind === 'aborted') return this.#finishAborted(state, outcome.partial);
        response = outcome.response;
        const split = this.#split(response);
        clean = await this.#finalize(state, split.content);
      }

      // Output cut off by the length limit: ask for the continuation.
      if (response.finishReason === 'length' && state.lengthSegments.length < MAX_LENGTH_SEGMENTS) {
        const segment = response.content ?? '';
        state.lengthSegments.push(segment);
        state.append({ role: 'assistant', content: segment });
        state.append({ role: 'user', content: lengthRecoveryMessage(lastChars(segment, LENGTH_TAIL_CHARS)) });
        state.emit({ ...state.base(), type: 'retry', iteration, reason: 'length' });
        continue;
      }

      if (response.finishReason === 'error') {
        const errorText = outcome.kind === 'response' ? outcome.errorText : null;
        const text = errorText ?? (response.content && response.content.trim() !== '' ? response.content : null);
        state.finalContent = text ?? spec.errorMessage ?? DEFAULT_ERROR_MESSAGE;
        state.error = text ?? state.finalContent;
        state.stopReason = 'error';
        // Streamed text is kept only when the stream broke; an error *response* streams its error text.
        const partial = outcome.kind === 'response' && outcome.errorText !== null ? outcome.partial : '';
        if (partial.trim() !== '') state.append({ role: 'assistant', content: partial, _interrupted: true });
        // The failure is stored as what it is (a row with `_failure`, no text): the model is never
        // shown a reply it did not give, only a neutral note where the turn needs closing.
        else if (!this.#endsWithPlainAssistant(state)) state.append(turnFailureRow('model_error', state.error));
        if (await this.#drainInjections(state)) {
          state.stopReason = 'completed';
          state.error = null;
          continue;
        }
        return;
      }

      if (clean.trim() === '') {
        state.finalContent = EMPTY_FINAL_RESPONSE_MESSAGE;
        state.error = EMPTY_FINAL_RESPONSE_MESSAGE;
        state.stopReason = 'empty_final_response';
        state.append({ role: 'assistant', content: EMPTY_FINAL_RESPONSE_MESSAGE });
        if (await this.#drainInjections(state)) {
          state.stopReason = 'completed';
          state.error = null;
          continue;
        }
        return;
      }

      const finalSplit = this.#split(response);
      const assistant = buildAssistantMessage({ content: clean, reasoningContent: finalSplit.reasoning, thinkingBlocks: response.thinkingBlocks ?? null, providerFields: response.messageFields ?? null });
      state.append(assistant);
      await this.#checkpoint(state, { phase: 'final_response', iteration, model: this.#model(spec), assistantMessage: assistant, completedToolResults: [], pendingToolCalls: [] });
      state.finalContent = state.lengthSegments.length > 0 ? (state.lengthSegments.join('') + clean).trim() : clean;
      state.stopReason = 'completed';
      if (state.outputFormat !== undefined) state.output = response.parsed;
      if (await this.#drainInjections(state)) {
        state.lengthSegments.length = 0;
        continue;
      }
      return;
    }
    await this.#finishMaxIterations(state, maxIterations);
  }

  async #finishMaxIterations(state: RunState, maxIterations: number): Promise<void> {
    const { spec } = state;
    state.stopReason = 'max_iterations';
    await this.#drainInjections(state);
    let text: string | null = null;
    if (spec.finalizeOnMaxIterations !== false && !state.signal.aborted) {
      // Unlike the reference, the summary request goes through the governor too: the raw
      // transcript may hold orphans or exceed the window after a long tool loop.
      const request = [...state.transcript, { role: 'user', content: MAX_ITERATIONS_FINALIZE_PROMPT }];
      const governed = this.#govern(state, request, [], state.iteration, 'finalize_max_iterations');
      const outcome = await this.#request(state, governed, [], state.iteration, 'finalize_max_iterations');
      if (outcome.kind === 'aborted') return this.#finishAborted(state, outcome.partial);
      const { response } = outcome;
      if (response.finishReason !== 'error' && response.toolCalls.length === 0) {
        const clean = await this.#finalize(state, this.#split(response).content);
        if (clean.trim() !== '') text = clean;
      }
    }
    if (text === null) {
      const template = spec.maxIterationsMessage ?? DEFAULT_MAX_ITERATIONS_MESSAGE;
      text = template.split('{max_iterations}').join(String(maxIterations));
    }
    const finalText = state.lengthSegments.length > 0 ? `${state.lengthSegments.join('').trimEnd()}\n\n${text.trimStart()}` : text;
    state.finalContent = finalText;
    state.append({ role: 'assistant', content: text });
  }

  /**
   * Call ids must be unique in the whole transcript, or a replay pairs results with the wrong
   * call. Some models and gateways reuse ids across turns (`call_0` every time): such calls get
   * a fresh id before they are stored. The provider's objects are not modified.
   */
  #uniqueIds(state: RunState, requests: readonly ToolCallRequest[]): ToolCallRequest[] {
    if (state.usedCallIds === null) {
      state.usedCallIds = new Set();
      for (const message of state.transcript) for (const c of message.tool_calls ?? []) state.usedCallIds.add(c.id);
    }
    const used = state.usedCallIds;
    return requests.map((request) => {
      let id = request.id;
      while (typeof id !== 'string' || id === '' || used.has(id)) id = `call_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      used.add(id);
      return id === request.id ? request : { ...request, id };
    });
  }

  #finishAborted(state: RunState, partial: string): void {
    state.stopReason = 'aborted';
    state.error = 'aborted';
    if (partial.trim() !== '') {
      state.append({ role: 'assistant', content: partial, _interrupted: true });
      state.finalContent = partial;
    }
  }

  #endsWithPlainAssistant(state: RunState): boolean {
    const last = state.transcript[state.transcript.length - 1];
    return last !== undefined && last.role === 'assistant' && !(last.tool_calls && last.tool_calls.length > 0);
  }

  /**
   * Asks the provider for the exact input count of a governed request (its `countTokens`) on a
   * session's first request and whenever the calibrator has no data for the model, and feeds it
   * to the calibrator. Returns whether the calibrator learned from it (the caller governs again,
   * so sizing uses the exact figure). A failed or slow count never fails the turn: it emits
   * `token_count` with the error and the estimate serves.
   */
  async #exactCount(state: RunState, messages: readonly Message[], tools: readonly ToolDefinition[], iteration: number): Promise<boolean> {
    const { spec } = state;
    const calibrator = spec.calibrator;
    const estimated = state.lastPromptEstimate;
    if (!calibrator || typeof spec.provider.countTokens !== 'function' || estimated === null || state.exactCountFailed) return false;
    const model = this.#model(spec);
    const sessionKey = spec.sessionKey ?? `run:${state.runId}`;
    if (this.#countedSessions.has(sessionKey) && calibrator.ratio(model) !== null) return false;
    this.#countedSessions.add(sessionKey);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), spec.countTokensTimeoutMs ?? 15_000);
    const onAbort = (): void => controller.abort();
    state.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const step = await raceSignal(spec.provider.countTokens({ messages, tools, model, signal: controller.signal }), controller.signal);
      if (step === ABORTED) throw new Error(state.signal.aborted ? 'aborted' : 'the count timed out');
      const learned = calibrator.observe({ model, estimated, actual: step.inputTokens });
      state.emit({ ...state.base(), type: 'token_count', iteration, ok: true, model, estimated, inputTokens: step.inputTokens });
      return learned;
    } catch (error) {
      state.exactCountFailed = true;
      state.emit({ ...state.base(), type: 'token_count', iteration, ok: false, model, estimated, error: error instanceof Error ? error.message : String(error) });
      return false;
    } finally {
      clearTimeout(timer);
      state.signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Sizes the run from the model's facts when it left the window unset (see
   * `AgentRunSpec.modelFacts`) and says where they came from. A source that rejects despite its
   * contract, or an abort, leaves the governor's defaults; nothing here fails the run.
   */
  async #modelFacts(state: RunState): Promise<void> {
    const { spec } = state;
    const source = spec.modelFacts;
    if (!source || spec.contextWindowTokens !== undefined) return;
    const model = this.#model(spec);
    let facts;
    try {
      facts = await raceSignal(source.lookup(model, { signal: state.signal }), state.signal);
    } catch (error) {
      state.emit({ ...state.base(), type: 'model_facts', model, source: 'none', problem: `the model facts lookup failed: ${error instanceof Error ? error.message : String(error)}` });
      return;
    }
    if (facts === ABORTED) return;
    if (facts.contextWindow !== undefined) {
      state.windowTokens = facts.contextWindow;
      if (spec.maxTokens === undefined) state.replyTokens = replyReserveFor(facts.contextWindow, facts.maxOutput);
    }
    state.emit({
      ...state.base(),
      type: 'model_facts',
      model,
      source: facts.source,
      ...(facts.contextWindow !== undefined ? { contextWindow: facts.contextWindow } : {}),
      ...(facts.maxOutput !== undefined ? { maxOutput: facts.maxOutput } : {}),
      ...(facts.fetchedAt !== undefined ? { fetchedAt: facts.fetchedAt } : {}),
      ...(state.windowTokens !== undefined ? { windowTokens: state.windowTokens } : {}),
      ...(state.replyTokens !== undefined ? { replyTokens: state.replyTokens } : {}),
      ...(facts.problem !== undefined ? { problem: facts.problem } : {}),
    });
  }

  #model(spec: AgentRunSpec): string {
    return spec.model ?? spec.provider.defaultModel;
  }

  #split(response: LLMResponse): { content: string; reasoning: string | null } {
    const raw = response.content ?? '';
    // Tag-free text is kept byte for byte: continuations after a `length` cut are concatenated.
    const [inlineReasoning, content] = raw.includes('<') ? extractThink(raw) : [null, raw];
    let reasoning: string | null = response.reasoningContent ?? null;
    if (reasoning === null && response.thinkingBlocks && response.thinkingBlocks.length > 0) {
      const text = response.thinkingBlocks.map((b) => (typeof b.thinking === 'string' ? b.thinking : '')).join('\n');
      reasoning = text === '' ? null : text;
    }
    if (reasoning === null && inlineReasoning) reasoning = inlineReasoning;
    return { content, reasoning };
  }

  #govern(state: RunState, messages: readonly Message[], tools: readonly ToolDefinition[], iteration: number, purpose: ModelRequestPurpose): readonly Message[] {
    const { spec } = state;
    const toolTraits = spec.tools.toolTraits?.();
    const options: RunnerGovernOptions = {
      contextWindowTokens: state.windowTokens,
      maxOutputTokens: state.replyTokens,
      contextBlockLimit: spec.contextBlockLimit,
      maxToolResultChars: spec.maxToolResultChars ?? 16_000,
      inflightStartIndex: spec.initialMessages.length,
      compactedToolCallIds: state.compactedToolCallIds,
      tools,
      sessionKey: spec.sessionKey,
      model: this.#model(spec),
      ...(spec.calibrator ? { calibrator: spec.calibrator } : {}),
      cutPlan: spec.sessionKey === undefined ? state.cutPlan : this.#cutPlans.get(spec.sessionKey),
      ...(toolTraits ? { toolTraits } : {}),
    };
    const target = spec.governOptions?.target ?? providerTarget(spec.provider.governorTarget);
    if (target !== undefined) options.target = target;
    // Stored failure rows (a failed request, an interrupted call) go to the model as their
    // neutral notes; one row for one row, so `inflightStartIndex` keeps its meaning.
    const view = replayFailures(messages);
    const result = spec.govern ? spec.govern(view, options) : govern(view, { ...spec.governOptions, ...options });
    this.#keepCutPlan(state, result.cutPlan);
    const estimate = (result.report as { tokensAfter?: unknown } | null | undefined)?.tokensAfter;
    state.lastPromptEstimate = typeof estimate === 'number' ? estimate : null;
    const calibrated = (result.report as { tokensCalibrated?: unknown } | null | undefined)?.tokensCalibrated;
    state.lastPromptCalibrated = typeof calibrated === 'number' ? calibrated : null;
    state.spans?.governance(result.report, iteration, purpose);
    state.emit({
      ...state.base(),
      type: 'governance',
      iteration,
      report: result.report,
      transcriptCount: messages.length,
      requestCount: result.messages.length,
    });
    // The governor returns its input when nothing changed, and the input may be the live
    // transcript: the provider and hooks get a snapshot, so later appends never show up in a
    // request someone still holds (a provider logging it, a queued retry, an inspector).
    const request = result.messages === messages || result.messages === state.transcript ? messages.slice() : result.messages;
    state.cacheBoundaries.set(request, result.report);
    if (spec.onGoverned) {
      try {
        spec.onGoverned({
          runId: state.runId,
          ...(spec.sessionKey !== undefined ? { sessionKey: spec.sessionKey } : {}),
          iteration,
          purpose,
          transcript: messages === state.transcript ? messages.slice() : messages,
          messages: request,
          report: result.report,
          tools,
          inflightStartIndex: options.inflightStartIndex,
        });
      } catch (error) {
        state.emit({ ...state.base(), type: 'hook_error', hook: 'onGoverned', error: describeError(error) });
      }
    }
    return request;
  }

  #keepCutPlan(state: RunState, plan: CutPlan | null | undefined): void {
    const next = plan ?? null;
    if (state.spec.sessionKey === undefined) state.cutPlan = next;
    else this.#cutPlans.set(state.spec.sessionKey, next);
  }

  async #hook(state: RunState, name: string, call: (hook: RunnerHooks) => unknown): Promise<unknown> {
    const hooks = state.spec.hooks;
    if (hooks === undefined) return undefined;
    const list: readonly RunnerHooks[] = Array.isArray(hooks) ? hooks : [hooks as RunnerHooks];
    let last: unknown = undefined;
    for (const hook of list) {
      try {
        const value = await call(hook);
        if (value !== undefined) last = value;
      } catch (error) {
        if (hook.critical) throw new HookFailure(name, error);
        state.emit({ ...state.base(), type: 'hook_error', hook: name, error: describeError(error) });
      }
    }
    return last;
  }

  async #finalize(state: RunState, content: string): Promise<string> {
    const hooks = state.spec.hooks;
    if (hooks === undefined) return content;
    const list: readonly RunnerHooks[] = Array.isArray(hooks) ? hooks : [hooks as RunnerHooks];
    let value = content;
    for (const hook of list) {
      if (!hook.finalizeContent) continue;
      try {
        value = await hook.finalizeContent(value);
      } catch (error) {
        if (hook.critical) throw new HookFailure('finalizeContent', error);
        state.emit({ ...state.base(), type: 'hook_error', hook: 'finalizeContent', error: describeError(error) });
      }
    }
    return value;
  }

  async #checkpoint(state: RunState, payload: Omit<CheckpointPayload, 'transcript' | 'appendedFrom'>): Promise<void> {
    if (!state.spec.checkpoint) return;
    try {
      await state.spec.checkpoint({ ...payload, transcript: state.transcript, appendedFrom: state.spec.initialMessages.length });
    } catch (error) {
      state.emit({ ...state.base(), type: 'hook_error', hook: 'checkpoint', error: describeError(error) });
    }
  }

  async #drainInjections(state: RunState): Promise<boolean> {
    const source = state.spec.injections;
    if (!source || state.injectionCycles >= MAX_INJECTION_CYCLES || state.signal.aborted) return false;
    let items: readonly Message[];
    try {
      items = await source(MAX_INJECTIONS_PER_DRAIN);
    } catch (error) {
      state.emit({ ...state.base(), type: 'hook_error', hook: 'injections', error: describeError(error) });
      return false;
    }
    const kept = items.filter((m) => m && typeof m === 'object' && userContentNonEmpty(m)).slice(0, MAX_INJECTIONS_PER_DRAIN);
    if (kept.length === 0) return false;
    state.injectionCycles += 1;
    state.hadInjections = true;
    // Appended, never merged into an earlier user row: that row may already be persisted, and
    // consecutive user rows are legal (the governor's role alternation merges them in the copy).
    for (const message of kept) state.append({ ...message, role: message.role ?? 'user' });
    return true;
  }

  /** One request; malformed tool calls are dropped and, if all were, retried once (runner.md §3). */
  async #requestWithMalformedRecovery(state: RunState, messages: readonly Message[], tools: readonly ToolDefinition[], iteration: number): Promise<ModelOutcome> {
    const first = await this.#request(state, messages, tools, iteration, 'turn');
    if (first.kind === 'aborted') return first;
    const cleaned = this.#dropMalformed(first.response);
    if (!cleaned.allMalformed) return { ...first, response: cleaned.response };
    state.emit({ ...state.base(), type: 'retry', iteration, reason: 'malformed_tool_calls' });
    const text = (first.response.content ?? '').trim();
    const note = text === '' ? MALFORMED_TOOL_CALLS_PROMPT : `${MALFORMED_TOOL_CALLS_PROMPT}\n\nPrevious assistant text before the malformed calls:\n${text}`;
    const retryMessages = this.#govern(state, [...state.transcript, { role: 'user', content: note }], tools, iteration, 'malformed_retry');
    const second = await this.#request(state, retryMessages, tools, iteration, 'malformed_retry');
    if (second.kind === 'aborted') return second;
    const cleanedSecond = this.#dropMalformed(second.response);
    if (!cleanedSecond.allMalformed) return { ...second, response: cleanedSecond.response };
    const third = await this.#request(state, retryMessages, [], iteration, 'malformed_retry');
    if (third.kind === 'aborted') return third;
    return { ...third, response: this.#dropMalformed(third.response).response };
  }

  #dropMalformed(response: LLMResponse): { response: LLMResponse; allMalformed: boolean } {
    const valid = response.toolCalls.filter((c) => typeof c.name === 'string' && c.name.length > 0);
    const wantedTools = response.finishReason === 'tool_calls' || response.finishReason === 'function_call';
    // Providers already drop nameless calls; a tool_calls finish with none left means the same.
    if (valid.length === response.toolCalls.length && !(valid.length === 0 && wantedTools)) return { response, allMalformed: false };
    const allMalformed = valid.length === 0 && wantedTools;
    const finishReason = valid.length === 0 && (response.finishReason === 'tool_calls' || response.finishReason === 'function_call') ? 'stop' : response.finishReason;
    return { response: { ...response, toolCalls: valid, finishReason, providerState: undefined }, allMalformed };
  }

  /** Calls the provider once; aborts, timeouts and provider failures become outcomes, not throws. */
  async #request(state: RunState, messages: readonly Message[], tools: readonly ToolDefinition[], iteration: number, purpose: ModelRequestPurpose): Promise<ModelOutcome> {
    const { spec } = state;
    if (state.signal.aborted) return { kind: 'aborted', partial: '' };
    state.emit({ ...state.base(), type: 'model_start', iteration, messageCount: messages.length, toolCount: tools.length, purpose });
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(state.signal.reason);
    state.signal.addEventListener('abort', onAbort, { once: true });
    const streaming = spec.stream !== false;
    const configured = spec.llmTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeoutMs = configured <= 0 ? 0 : streaming ? Math.max(DEFAULT_TIMEOUT_MS, 2 * configured) : configured;
    let timedOut = false;
    const timer = timeoutMs > 0 ? setTimeout(() => { timedOut = true; controller.abort(new Error('timeout')); }, timeoutMs) : null;
    timer?.unref?.();
    const request: LLMRequest = {
      messages,
      ...(tools.length > 0 ? { tools } : {}),
      model: this.#model(spec),
      ...(spec.maxTokens !== undefined ? { maxTokens: spec.maxTokens } : {}),
      ...(spec.temperature !== undefined ? { temperature: spec.temperature } : {}),
      ...(spec.reasoningEffort !== undefined ? { reasoningEffort: spec.reasoningEffort } : {}),
      // The final output type applies to answers; a request made without tools is one too.
      ...(state.outputFormat !== undefined ? { responseFormat: state.outputFormat } : {}),
      ...cacheBreakpointsField(state.cacheBoundaries.get(messages), messages.length, tools.length > 0),
      onNotice: (notice) => this.#notice(state, iteration, notice),
      signal: controller.signal,
    };
    const span = state.spans?.startModel({ provider: spec.provider.name, model: request.model ?? spec.provider.defaultModel, maxTokens: spec.maxTokens, temperature: spec.temperature, iteration, purpose }) ?? null;
    let partial = '';
    try {
      let response: LLMResponse | null = null;
      if (streaming) {
        const iterator = spec.provider.stream(request)[Symbol.asyncIterator]();
        try {
          for (;;) {
            const step = await raceSignal(iterator.next(), controller.signal);
            if (step === ABORTED) {
              if (state.signal.aborted) return { kind: 'aborted', partial };
              throw new Error('timeout');
            }
            if (step.done) break;
            const event = step.value;
            if (event.type === 'text_delta') {
              partial += event.delta;
              state.emit({ ...state.base(), type: 'model_delta', iteration, delta: event.delta });
            } else if (event.type === 'reasoning_delta') {
              state.emit({ ...state.base(), type: 'reasoning_delta', iteration, delta: event.delta });
            } else if (event.type === 'tool_call_delta') {
              state.emit({
                ...state.base(),
                type: 'tool_call_delta',
                iteration,
                index: event.index,
                ...(event.id !== undefined ? { id: event.id } : {}),
                ...(event.name !== undefined ? { name: event.name } : {}),
                ...(event.argumentsDelta !== undefined ? { argumentsDelta: event.argumentsDelta } : {}),
              });
            } else if (event.type === 'done') {
              response = event.response;
              break;
            }
          }
        } finally {
          if (response === null) Promise.resolve(iterator.return?.()).catch(noop);
        }
        if (response === null) throw new Error('the model stream ended without a final response');
      } else {
        const step = await raceSignal(Promise.resolve().then(() => spec.provider.chat(request)), controller.signal);
        if (step === ABORTED) {
          if (state.signal.aborted) return { kind: 'aborted', partial: '' };
          throw new Error('timeout');
        }
        response = step;
      }
      const normalised: LLMResponse = { ...response, toolCalls: response.toolCalls ?? [], usage: response.usage ?? { inputTokens: 0, outputTokens: 0 } };
      // Before #addUsage, which may fill a missing count with the estimate. Keyed by the model
      // asked for (what the next govern call looks up), not the dated name a provider echoes.
      const calibration = observeUsage(spec.calibrator, this.#model(spec), { estimated: state.lastPromptEstimate, calibrated: state.lastPromptCalibrated }, normalised.usage);
      const cost = this.#addUsage(state, normalised.usage, normalised.model ?? request.model);
      if (span) state.spans?.endModel(span, normalised, null, cost?.total);
      state.emit({
        ...state.base(),
        type: 'model_end',
        iteration,
        finishReason: normalised.finishReason,
        usage: normalised.usage,
        toolCallCount: normalised.toolCalls.length,
        response: normalised,
        ...(cost !== undefined ? { cost } : {}),
        ...calibration,
      });
      return { kind: 'response', response: normalised, errorText: null, partial };
    } catch (error) {
      if (state.signal.aborted) {
        span?.end();
        return { kind: 'aborted', partial };
      }
      const seconds = timeoutMs / 1000;
      const errorText = timedOut ? `Error calling LLM: timed out after ${Number.isInteger(seconds) ? seconds : seconds.toString()}s` : `Error calling LLM: ${error instanceof Error ? error.message : String(error)}`;
      // An answer off the requested schema is the model's failure: reported, with its raw text kept.
      if (error instanceof StructuredOutputError) state.outputError = error;
      const response: LLMResponse = { content: null, toolCalls: [], finishReason: 'error', usage: { inputTokens: 0, outputTokens: 0 } };
      if (span) state.spans?.endModel(span, response, errorText);
      state.emit({ ...state.base(), type: 'model_end', iteration, finishReason: 'error', usage: response.usage, toolCallCount: 0, response: { ...response, content: errorText } });
      return { kind: 'response', response, errorText, partial };
    } finally {
      if (timer) clearTimeout(timer);
      state.signal.removeEventListener('abort', onAbort);
    }
  }

  /** Provider retry waits and fallbacks, as runner events. */
  #notice(state: RunState, iteration: number, notice: ProviderNotice): void {
    if (notice.type === 'retry') {
      state.emit({ ...state.base(), type: 'retry', iteration, reason: 'provider', provider: notice.provider, attempt: notice.attempt, delayMs: notice.delayMs, detail: notice.reason });
    } else {
      state.emit({ ...state.base(), type: 'fallback', iteration, from: notice.from, to: notice.to, reason: notice.reason });
    }
  }

  /** Adds one request's usage to the run's; returns its cost when the prices are known. */
  #addUsage(state: RunState, usage: Usage, model: string | undefined): UsageCost | undefined {
    state.usage.requestCount += 1;
    state.usage.cacheCreationTokens += usage.cacheCreationTokens ?? 0;
    state.usage.reasoningTokens += usage.reasoningTokens ?? 0;
    let input = usage.inputTokens ?? 0;
    // Providers that report nothing (local servers, scripts) get the governor's estimate, as
    // the reference estimates missing usage; the result says so.
    if (input === 0 && (usage.outputTokens ?? 0) === 0 && state.lastPromptEstimate !== null) {
      input = state.lastPromptEstimate;
      state.usage.estimated = true;
    }
    state.usage.inputTokens += input;
    state.usage.outputTokens += usage.outputTokens ?? 0;
    state.usage.cachedTokens += usage.cachedTokens ?? 0;
    state.usage.contextTokens = input;
    const pricing = state.spec.pricing;
    const prices = pricing === false ? undefined : (pricing ?? lookupModel(model)?.prices);
    if (prices === undefined || state.usage.estimated) return undefined;
    const cost = costOfUsage(usage, prices);
    state.usage.cost = state.usage.cost === undefined ? cost : addCosts(state.usage.cost, cost);
    return cost;
  }

  #isConcurrencySafe(tools: RunnerToolRegistry, name: string): boolean {
    const tool = tools.get(name);
    if (!tool) return false;
    if (typeof tool.concurrencySafe === 'boolean') return tool.concurrencySafe;
    return tool.readOnly === true && tool.exclusive !== true;
  }

  /** Runs every call (batched), returning one tool message per call in call order. */
  async #runTools(
    state: RunState,
    requests: readonly ToolCallRequest[],
    calls: readonly ToolCall[],
    iteration: number,
  ): Promise<{ results: Message[]; fatal: string | null; abortedDuring: boolean; thrown: unknown }> {
    const { spec } = state;
    const outcomes: (CallOutcome | undefined)[] = new Array(requests.length).fill(undefined);
    // When each call started, so a call cut off by an abort still reports how long it ran.
    const startedAt: (number | undefined)[] = new Array(requests.length).fill(undefined);
    const toolSpans: (Span | undefined)[] = new Array(requests.length).fill(undefined);
    const batches = planToolBatches(requests, (r) => this.#isConcurrencySafe(spec.tools, r.name), spec.concurrentTools === true);
    let abortedDuring = false;
    let finalized = false;
    let thrown: unknown = null;
    for (const batch of batches) {
      if (state.signal.aborted || thrown !== null) break;
      const running = batch.map(async (index) => {
        const started = performance.now();
        startedAt[index] = started;
        state.emit({ ...state.base(), type: 'tool_start', iteration, callId: calls[index].id, name: requests[index].name, arguments: requests[index].arguments });
        toolSpans[index] = state.spans?.startTool(requests[index].name, calls[index].id);
        let outcome: CallOutcome;
        try {
          outcome = await this.#execute(state, requests[index], calls[index], iteration);
        } catch (error) {
          // A critical hook failed: the call gets an error result, then the run ends.
          if (thrown === null) thrown = error;
          outcome = { content: `Error: ${describeError(error)}`, status: 'error', detail: flattenDetail(describeError(error), 120), fatal: null, durationMs: 0 };
        }
        // A call still running when the run was aborted is reported once, as interrupted, below.
        if (finalized) return;
        outcomes[index] = outcome;
        this.#recordEnd(state, requests[index], calls[index], iteration, outcome, started);
        const toolSpan = toolSpans[index];
        if (toolSpan) state.spans?.endTool(toolSpan, outcome.status, outcome.detail);
      });
      const step = await raceSignal(Promise.all(running), state.signal);
      if (step === ABORTED) break;
    }
    finalized = true;
    if (state.signal.aborted) abortedDuring = true;
    const results: Message[] = [];
    let fatal: string | null = null;
    for (let i = 0; i < requests.length; i += 1) {
      let outcome = outcomes[i];
      if (outcome === undefined) {
        outcome = { content: TOOL_INTERRUPTED_NOTE, status: 'interrupted', detail: 'interrupted', fatal: null, durationMs: 0 };
        this.#recordEnd(state, requests[i], calls[i], iteration, outcome, startedAt[i] ?? performance.now());
        const toolSpan = toolSpans[i];
        if (toolSpan) state.spans?.endTool(toolSpan, outcome.status, outcome.detail);
      }
      if (fatal === null && outcome.fatal !== null) fatal = outcome.fatal;
      results.push(
        outcome.status === 'interrupted'
          ? toolFailureRow({ id: calls[i].id, name: requests[i].name })
          : { role: 'tool', tool_call_id: calls[i].id, name: requests[i].name, content: outcome.content },
      );
    }
    return { results, fatal: spec.failOnToolError ? fatal : null, abortedDuring, thrown };
  }

  #recordEnd(state: RunState, request: ToolCallRequest, call: ToolCall, iteration: number, outcome: CallOutcome, started: number): void {
    outcome.durationMs = performance.now() - started;
    state.toolEvents.push({ callId: call.id, name: request.name, status: outcome.status, detail: outcome.detail });
    if (outcome.status === 'ok') state.toolsUsed.push(request.name);
    state.emit({
      ...state.base(),
      type: 'tool_end',
      iteration,
      callId: call.id,
      name: request.name,
      status: outcome.status,
      detail: outcome.detail,
      content: outcome.content,
      durationMs: outcome.durationMs,
    });
  }

  async #execute(state: RunState, request: ToolCallRequest, call: ToolCall, iteration: number): Promise<CallOutcome> {
    const { spec } = state;
    const name = request.name;
    const repeated = repeatedExternalLookupError(name, request.arguments, state.lookupCounts);
    if (repeated !== null) {
      return this.#failure(repeated + TOOL_ERROR_HINT, 'repeated external lookup blocked', repeated);
    }
    const prepared = spec.tools.prepareCall(name, request.arguments);
    if (!prepared.ok) {
      const text = prepared.error;
      const colon = text.indexOf(': ');
      const detail = flattenDetail(colon >= 0 ? text.slice(colon + 2) : text, 120);
      return this.#failure(text + TOOL_ERROR_HINT, detail, text);
    }
    const override = (await this.#hook(state, 'beforeTool', (h) =>
      h.beforeTool?.({ runId: state.runId, iteration, call, tool: prepared.tool, params: prepared.params, sessionKey: spec.sessionKey }),
    )) as ToolOverride | undefined;
    let content: MessageContent;
    let isError: boolean;
    let violationSource: unknown = null;
    if (override) {
      content = override.content;
      isError = override.isError === true;
    } else {
      const routing = spec.toolContext ?? {};
      const ctx = createToolContext({
        ...routing,
        sessionKey: routing.sessionKey ?? spec.sessionKey,
        signal: state.signal,
        toolCallId: call.id,
        emit: (event) => state.emit({ ...state.base(), type: 'tool_progress', iteration, callId: call.id, name, data: event }),
      });
      // The call was prepared above; a registry that can run a prepared call is not asked to
      // coerce, cast and validate it a second time.
      const execution = spec.tools.executePrepared
        ? await spec.tools.executePrepared(prepared, ctx, { toolCallId: call.id })
        : await spec.tools.execute(name, request.arguments, ctx, { toolCallId: call.id });
      if (execution.status === 'aborted' && state.signal.aborted) {
        return { content: TOOL_INTERRUPTED_NOTE, status: 'interrupted', detail: 'interrupted', fatal: null, durationMs: 0 };
      }
      content = execution.result.content as MessageContent;
      isError = execution.isError;
      violationSource = execution.status === 'threw' ? execution.error : execution.value;
      const after = (await this.#hook(state, 'afterTool', (h) =>
        h.afterTool?.({ runId: state.runId, iteration, call, status: isError ? 'error' : 'ok', content, sessionKey: spec.sessionKey }),
      )) as ToolOverride | undefined;
      if (after) {
        content = after.content;
        isError = after.isError === true;
      }
    }
    if (isError) {
      let text = contentText(content);
      if (text.endsWith(TOOL_ERROR_HINT)) text = text.slice(0, -TOOL_ERROR_HINT.length);
      const payload = text + TOOL_ERROR_HINT;
      const violation = this.#violation(state, name, request.arguments, violationSource, text, payload);
      if (violation) return violation;
      return this.#failure(payload, flattenDetail(text, 120), text);
    }
    if (isEmptyContent(content)) content = `(${name} completed with no output)`;
    const normalised = spec.normalizeToolResult ? spec.normalizeToolResult(content, { name, id: call.id }) : content;
    return { content: normalised, status: 'ok', detail: successDetail(content), fatal: null, durationMs: 0 };
  }

  #failure(payload: string, detail: string, fatalText: string): CallOutcome {
    const fatal = /^error\b/i.test(fatalText.trim()) ? fatalText.trim() : `Error: ${fatalText.trim()}`;
    return { content: payload, status: 'error', detail, fatal, durationMs: 0 };
  }

  /** Workspace/SSRF refusals: never fatal, SSRF gets its note, workspace attempts are throttled. */
  #violation(state: RunState, name: string, args: unknown, source: unknown, text: string, softPayload: string): CallOutcome | null {
    const violation = classifyViolation(source);
    if (violation === null) return null;
    if (violation.kind === 'ssrf') {
      const raw = text.trim() || 'Error: request blocked by SSRF guard';
      return { content: `${raw}\n\n${SSRF_NOTE}`, status: 'error', detail: flattenDetail(`ssrf_violation: ${text}`, 160), fatal: null, durationMs: 0 };
    }
    const cwd = state.spec.workspace ?? (typeof state.spec.toolContext?.workspace === 'string' ? state.spec.toolContext.workspace : process.cwd());
    const signature = workspaceTargetSignature(name, args, cwd) ?? (violation.path ? workspaceTargetSignature('', { path: violation.path }, cwd) : null);
    if (signature !== null) {
      const count = (state.violationCounts.get(signature) ?? 0) + 1;
      state.violationCounts.set(signature, count);
      if (count >= 3) {
        const target = signature.slice('violation:'.length);
        return { content: workspaceEscalationMessage(target, count), status: 'error', detail: flattenDetail(`workspace_violation_escalated: ${text}`, 160), fatal: null, durationMs: 0 };
      }
    }
    return { content: softPayload, status: 'error', detail: flattenDetail(`workspace_violation: ${text}`, 160), fatal: null, durationMs: 0 };
  }
}

/** A provider's `governorTarget` when it names a target this governor knows (else the governor's default). */
function providerTarget(name: string | undefined): GovernTarget | undefined {
  return name !== undefined && (GOVERN_TARGETS as readonly string[]).includes(name) ? (name as GovernTarget) : undefined;
}
