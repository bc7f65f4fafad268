import { StructuredOutputError, addCosts, costOfUsage, lookupModel } from '@nanobot/schema';
import type { LLMRequest, LLMResponse, ProviderNotice, ToolDefinition, Usage, UsageCost } from '@nanobot/schema';
import { ABORTED, raceSignal } from '@nanobot/tools-core';
import { cacheBreakpointsField } from '../cache-breakpoints-of.js';
import type { ModelRequestPurpose } from '../runner-events.js';
import { observeUsage } from '../usage-calibration-fields.js';
import type { GovernedCopy } from './govern-request.js';
import type { RunState } from './run-state.js';

const DEFAULT_TIMEOUT_MS = 300_000;
const noop = (): void => undefined;

/** What one model request came to: a response (a failure is one too, as data), or an abort. */
export type ModelOutcome =
| { kind: 'response'; response: LLMResponse; errorText: string | null; partial: string }
| { kind: 'aborted'; partial: string };

/**
 * Sends one governed copy to the provider (streaming unless the spec says not), with the
 * spec's time limit and the run's abort signal. Aborts, timeouts and provider failures become
 * outcomes, never throws; a usage report feeds the calibrator and the run's usage.
 */
export async function requestModel(state: RunState, copy: GovernedCopy, tools: readonly ToolDefinition[], iteration: number, purpose: ModelRequestPurpose): Promise<ModelOutcome> {
  const { spec } = state;
  const { messages } = copy;
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
    model: state.model,
    ...(spec.maxTokens !== undefined ? { maxTokens: spec.maxTokens } : {}),
    ...(spec.temperature !== undefined ? { temperature: spec.temperature } : {}),
    ...(spec.reasoningEffort !== undefined ? { reasoningEffort: spec.reasoningEffort } : {}),
    ...(spec.contextManagement !== undefined ? { contextManagement: spec.contextManagement } : {}),
    // The final output type applies to answers; a request made without tools is one too.
    ...(state.outputFormat !== undefined ? { responseFormat: state.outputFormat } : {}),
    ...cacheBreakpointsField(copy.report, messages.length, tools.length > 0),
    onNotice: (notice) => reportNotice(state, iteration, notice),
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
    // Before addUsage, which may fill a missing count with the estimate. Keyed by the model
    // asked for (what the next govern call looks up), not the dated name a provider echoes.
    const calibration = observeUsage(spec.calibrator, state.model, { estimated: copy.estimated, calibrated: copy.calibrated }, normalised.usage);
    const cost = addUsage(state, copy, normalised.usage, normalised.model ?? request.model);
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
function reportNotice(state: RunState, iteration: number, notice: ProviderNotice): void {
  if (notice.type === 'retry') {
    state.emit({ ...state.base(), type: 'retry', iteration, reason: 'provider', provider: notice.provider, attempt: notice.attempt, delayMs: notice.delayMs, detail: notice.reason });
  } else {
    state.emit({ ...state.base(), type: 'fallback', iteration, from: notice.from, to: notice.to, reason: notice.reason });
  }
}

/** Adds one request's usage to the run's; returns its cost when the prices are known. */
function addUsage(state: RunState, copy: GovernedCopy, usage: Usage, model: string | undefined): UsageCost | undefined {
  state.usage.requestCount += 1;
  state.usage.cacheCreationTokens += usage.cacheCreationTokens ?? 0;
  state.usage.reasoningTokens += usage.reasoningTokens ?? 0;
  let input = usage.inputTokens ?? 0;
  // Providers that report nothing (local servers, scripts) get the governor's estimate, as
  // the reference estimates missing usage; the result says so.
  if (input === 0 && (usage.outputTokens ?? 0) === 0 && copy.estimated !== null) {
    input = copy.estimated;
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
