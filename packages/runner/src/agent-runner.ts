import { randomUUID } from 'node:crypto';
import { createGovernor } from '@nanobot/governor';
import type { Governor } from '@nanobot/governor';
import type { ToolDefinition } from '@nanobot/schema';
import { buildAssistantMessage } from './build-assistant-message.js';
import { EventDispatcher } from './event-dispatcher.js';
import type { EventSink } from './runner-events.js';
import { DEFAULT_MAX_ITERATIONS_MESSAGE, FINALIZATION_RETRY_PROMPT, MAX_ITERATIONS_FINALIZE_PROMPT } from './runner-texts.js';
import type { AgentRunResult, AgentRunSpec } from './run-spec.js';
import { toOpenAIToolCall } from './to-openai-tool-call.js';
import { classifyAnswer, isToolTurn } from './turn/classify-response.js';
import { exactCount, governRequest } from './turn/govern-request.js';
import { emptyFinalTurn, failedTurn, toolFailureTurn } from './turn/policies/failed-turn.js';
import { joinSegments, lengthContinuation } from './turn/policies/length-continuation.js';
import { requestWithMalformedRecovery } from './turn/policies/malformed-calls.js';
import { requestModel, type ModelOutcome } from './turn/request-model.js';
import { callHooks, checkpoint, drainInjections, finalizeContent } from './turn/run-hooks.js';
import { HookFailure, RunState, describeError, type RunnerShared } from './turn/run-state.js';
import { runTools } from './turn/run-tools.js';
import { SessionHistories } from './turn/session-histories.js';
import { sizeFromModelFacts } from './turn/size-from-model-facts.js';
import { splitResponse } from './turn/split-response.js';
import { abortedTurn, answeredTurn, endTurn, type TurnEnding } from './turn/turn-ending.js';
import { uniqueCallIds } from './turn/unique-call-ids.js';
import { validateRunSpec } from './validate-inputs.js';

export type { AgentRunResult, AgentRunSpec, CheckpointPayload, CheckpointPhase } from './run-spec.js';

/** Sessions whose carried state (cut plan, memos) the default Governor keeps; the least recently used goes first. */
const DEFAULT_MAX_SESSIONS = 1024;

/** Options of {@link AgentRunner}. */
export interface AgentRunnerOptions {
  /**
   * The agent's governor (`createGovernor()` of @nanobot/governor): it carries each session's
   * cut plan and memos from request to request by session key. Default: a fresh one keeping
   * 1024 sessions. Share one runner (or one Governor) between an agent's loop and subagents.
   */
  governor?: Governor;
  /**
   * `true` (default): the runner governs each run's transcript, replayed, as a history the
   * Governor owns (`governor.createHistory`), appending only what the transcript gained since the
   * last request, and keeps a session's history for its next run; a request on a long session
   * then costs what was appended, not the session's length. `false`: every request replays and
   * governs the whole transcript as an array. The requests and reports are the same either way.
   */
  ownedHistories?: boolean;
}

/** What one iteration came to: another iteration, or the end of the run. */
type Next = 'continue' | 'stop';

/**
 * Runs one agent turn: for up to `maxIterations` it governs a copy of the transcript, asks the
 * model (streaming), runs the requested tools in safe batches and appends the results, until the
 * model answers. Each iteration is request → classify → apply: the request (with the
 * malformed-call rule), the response classified (tool turn, or what the answer calls for), and
 * the verdict applied (tools run, a recovery rule, or the turn's ending). One instance may run
 * many sessions at once; between runs its Governor keeps each session's history cut plan (in
 * memory, by session key), so a session's next turn re-applies the previous request's cut and
 * its prompt prefix stays cacheable.
 */
export class AgentRunner {
  /** The agent's Governor (see {@link AgentRunnerOptions.governor}). */
  readonly governor: Governor;
  readonly #shared: RunnerShared;

  constructor(options: AgentRunnerOptions = {}) {
    this.governor = options.governor ?? createGovernor({ maxConversations: DEFAULT_MAX_SESSIONS });
    this.#shared = { governor: this.governor, countedSessions: new Set(), histories: options.ownedHistories === false ? null : new SessionHistories() };
  }

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
    const state = new RunState(spec, runId, events, local.signal, this.#shared);
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
      state.releaseHistory();
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
    await sizeFromModelFacts(state);
    while (state.iteration < maxIterations) {
      if ((await this.#iterate(state)) === 'stop') return;
    }
    await this.#finishMaxIterations(state, maxIterations);
  }

  /** One iteration: request → classify → apply. */
  async #iterate(state: RunState): Promise<Next> {
    const { spec } = state;
    if (state.signal.aborted) return this.#end(state, abortedTurn(''));
    const iteration = state.iteration;
    state.iteration += 1;
    state.emit({ ...state.base(), type: 'iteration_start', iteration });

    // Request.
    const tools = spec.tools.definitions();
    let copy = governRequest(state, null, tools, iteration, 'turn');
    if (await exactCount(state, copy, tools, iteration)) copy = governRequest(state, null, tools, iteration, 'turn');
    await callHooks(state, 'beforeModel', (h) => h.beforeModel?.({ runId: state.runId, iteration, messages: copy.messages, tools, sessionKey: spec.sessionKey }));
    let outcome = await requestWithMalformedRecovery(state, copy, tools, iteration);
    if (outcome.kind === 'aborted') return this.#end(state, abortedTurn(outcome.partial));
    const first = outcome.response;
    await callHooks(state, 'afterModel', (h) => h.afterModel?.({ runId: state.runId, iteration, response: first, sessionKey: spec.sessionKey }));

    // Classify: a tool turn, or what the answer calls for.
    if (isToolTurn(first)) return this.#applyTools(state, outcome, iteration);
    let text = await finalizeContent(state, splitResponse(first).content);
    let verdict = classifyAnswer(first, { text, emptyRetries: state.emptyRetries, lengthSegments: state.lengthSegments.length, emptyHandled: false });
    if (verdict.kind === 'retry_empty' || verdict.kind === 'finalize_empty') {
      state.emptyRetries += 1;
      if (verdict.kind === 'retry_empty') {
        state.emit({ ...state.base(), type: 'retry', iteration, reason: 'empty_response' });
        return 'continue';
      }
      outcome = await this.#finalizeEmpty(state, iteration);
      if (outcome.kind === 'aborted') return this.#end(state, abortedTurn(outcome.partial));
      text = await finalizeContent(state, splitResponse(outcome.response).content);
      verdict = classifyAnswer(outcome.response, { text, emptyRetries: state.emptyRetries, lengthSegments: state.lengthSegments.length, emptyHandled: true });
    }

    // Apply.
    const { response } = outcome;
    switch (verdict.kind) {
      case 'continue_length': {
        const continuation = lengthContinuation(response, state.lengthSegments.length)!;
        state.lengthSegments.push(continuation.segment);
        for (const row of continuation.rows) state.append(row);
        state.emit({ ...state.base(), type: 'retry', iteration, reason: 'length' });
        return 'continue';
      }
      case 'failed':
        return this.#end(state, failedTurn({ errorText: outcome.errorText, content: response.content, partial: outcome.partial, errorMessage: spec.errorMessage, closed: state.endsWithPlainAssistant() }));
      case 'empty_final':
        return this.#end(state, emptyFinalTurn());
      default: {
        const assistant = buildAssistantMessage({ content: text, reasoningContent: splitResponse(response).reasoning, thinkingBlocks: response.thinkingBlocks ?? null, providerFields: response.messageFields ?? null });
        state.append(assistant);
        await checkpoint(state, { phase: 'final_response', iteration, model: state.model, assistantMessage: assistant, completedToolResults: [], pendingToolCalls: [] });
        if (state.outputFormat !== undefined) state.output = response.parsed;
        return this.#end(state, answeredTurn(joinSegments(state.lengthSegments, text)));
      }
    }
  }

  /** Applies a tool turn: the assistant's calls are stored, run and answered. */
  async #applyTools(state: RunState, outcome: ModelOutcome & { kind: 'response' }, iteration: number): Promise<Next> {
    const { response } = outcome;
    const requests = uniqueCallIds(state, response.toolCalls);
    const calls = requests.map(toOpenAIToolCall);
    const { content, reasoning } = splitResponse(response);
    const assistant = buildAssistantMessage({
      content,
      toolCalls: calls,
      reasoningContent: reasoning,
      thinkingBlocks: response.thinkingBlocks ?? null,
      providerFields: response.messageFields ?? null,
    });
    state.append(assistant);
    await checkpoint(state, { phase: 'awaiting_tools', iteration, model: state.model, assistantMessage: assistant, completedToolResults: [], pendingToolCalls: calls });
    const { results, fatal, abortedDuring, thrown } = await runTools(state, requests, calls, iteration);
    for (const message of results) state.append(message);
    if (thrown !== null) throw thrown;
    if (abortedDuring) return this.#end(state, abortedTurn(''));
    if (fatal !== null) return this.#end(state, toolFailureTurn(fatal));
    await checkpoint(state, { phase: 'tools_completed', iteration, model: state.model, assistantMessage: assistant, completedToolResults: results, pendingToolCalls: [] });
    state.emptyRetries = 0;
    state.lengthSegments.length = 0;
    await drainInjections(state);
    return 'continue';
  }

  /** The empty-answer rule's second step: one request without tools, asking for the answer. */
  #finalizeEmpty(state: RunState, iteration: number): Promise<ModelOutcome> {
    // Governed again with the prompt in place: appending to the governed copy could push a
    // request that was exactly at the budget over it.
    const copy = governRequest(state, { role: 'user', content: FINALIZATION_RETRY_PROMPT }, [], iteration, 'finalize_empty');
    return requestModel(state, copy, [], iteration, 'finalize_empty');
  }

  /** The one place a turn ends: applies the ending; injected input may continue the turn. */
  async #end(state: RunState, ending: TurnEnding): Promise<Next> {
    return (await endTurn(state, ending)) ? 'continue' : 'stop';
  }

  async #finishMaxIterations(state: RunState, maxIterations: number): Promise<void> {
    const { spec } = state;
    state.stopReason = 'max_iterations';
    await drainInjections(state);
    let text: string | null = null;
    if (spec.finalizeOnMaxIterations !== false && !state.signal.aborted) {
      // Unlike the reference, the summary request goes through the governor too: the raw
      // transcript may hold orphans or exceed the window after a long tool loop.
      const noTools: readonly ToolDefinition[] = [];
      const copy = governRequest(state, { role: 'user', content: MAX_ITERATIONS_FINALIZE_PROMPT }, noTools, state.iteration, 'finalize_max_iterations');
      const outcome = await requestModel(state, copy, noTools, state.iteration, 'finalize_max_iterations');
      if (outcome.kind === 'aborted') {
        await endTurn(state, abortedTurn(outcome.partial));
        return;
      }
      const { response } = outcome;
      if (response.finishReason !== 'error' && response.toolCalls.length === 0) {
        const clean = await finalizeContent(state, splitResponse(response).content);
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
}
