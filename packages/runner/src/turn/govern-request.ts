import { replayFailures, replayedRow } from '@nanobot/schema';
import type { Message, ToolDefinition } from '@nanobot/schema';
import { GOVERN_TARGETS, type CutPlan, type Governor, type GovernorHistory, type GovernReport, type GovernTarget } from '@nanobot/governor';
import { ABORTED, raceSignal } from '@nanobot/tools-core';
import type { ModelRequestPurpose } from '../runner-events.js';
import type { RunnerGovernOptions } from '../runner-ports.js';
import { describeError, type RunState } from './run-state.js';

/** A governed model copy and what the runner needs from the governor's report. */
export interface GovernedCopy {
  /** The array the provider and hooks get (never the live transcript). */
  readonly messages: readonly Message[];
  /** The governor's report (a `GovernReport` with the default governor; anything with a custom `govern`). */
  readonly report: unknown;
  /** The governor's estimate of the copy's prompt tokens, when it made one. */
  readonly estimated: number | null;
  /** The calibrated count of the copy (what sizing used), when the governor made one. */
  readonly calibrated: number | null;
}

/** A provider's `governorTarget` when it names a target this governor knows (else the governor's default). */
function providerTarget(name: string | undefined): GovernTarget | undefined {
  return name !== undefined && (GOVERN_TARGETS as readonly string[]).includes(name) ? (name as GovernTarget) : undefined;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}

/** The figures of a custom `govern`'s report: it may report anything, so only numbers are taken. */
function customFigures(report: unknown): { estimated: number | null; calibrated: number | null } {
  if (typeof report !== 'object' || report === null) return { estimated: null, calibrated: null };
  return { estimated: numberOrNull(Reflect.get(report, 'tokensAfter')), calibrated: numberOrNull(Reflect.get(report, 'tokensCalibrated')) };
}

function reportFigures(report: GovernReport): { estimated: number | null; calibrated: number | null } {
  return { estimated: report.tokensAfter ?? null, calibrated: report.tokensCalibrated ?? null };
}

/** Records a custom governor's plan as the session's in the Governor (its calibrator kept). */
function keepSessionPlan(governor: Governor, sessionKey: string, cutPlan: CutPlan | null): void {
  const kept = governor.sessionState(sessionKey);
  if (kept === undefined && cutPlan === null) return;
  governor.restoreSession(sessionKey, { version: 1, cutPlan, calibrator: kept?.calibrator ?? null });
}

/**
 * What the agent's Governor governs for a request: the run's replayed history (appended to, see
 * ReplayedHistory), or for a request with a `prompt` after the transcript (a retry, the
 * summary) an array of its rows and the prompt; with `ownedHistories: false`, the replayed
 * array. All hold the slots `replayFailures(messages)` holds.
 */
function governedInput(state: RunState, messages: readonly Message[], prompt: Message | null): readonly Message[] | GovernorHistory<Message> {
  const replayed = state.replayedHistory();
  if (replayed === null) return replayFailures(messages);
  const history = replayed.sync(state.transcript, state.appended);
  if (prompt === null) return history;
  const rows = history.toArray();
  rows.push(replayedRow(prompt));
  return rows;
}

/**
 * Governs the run's transcript for one request (followed by `prompt`, when given: a retry's or
 * the summary's): the spec's `govern`, else the agent's Governor under the run's session key
 * (which carries the session's cut plan from request to request; a run without a key carries
 * its own). Emits `governance`, traces it, tells `onGoverned`. Throws what the governor throws.
 */
export function governRequest(state: RunState, prompt: Message | null, tools: readonly ToolDefinition[], iteration: number, purpose: ModelRequestPurpose): GovernedCopy {
  const { spec } = state;
  const messages: readonly Message[] = prompt === null ? state.transcript : [...state.transcript, prompt];
  const toolTraits = spec.tools.toolTraits?.();
  const keyed = spec.sessionKey !== undefined;
  const options: RunnerGovernOptions = {
    contextWindowTokens: state.windowTokens,
    maxOutputTokens: state.replyTokens,
    contextBlockLimit: spec.contextBlockLimit,
    maxToolResultChars: spec.maxToolResultChars ?? 16_000,
    inflightStartIndex: spec.initialMessages.length,
    compactedToolCallIds: state.compactedToolCallIds,
    tools,
    sessionKey: spec.sessionKey,
    model: state.model,
    ...(spec.calibrator ? { calibrator: spec.calibrator } : {}),
    ...(toolTraits ? { toolTraits } : {}),
    ...(spec.contextManagement !== undefined ? { serverContextManagement: spec.contextManagement } : {}),
  };
  const target = spec.governOptions?.target ?? providerTarget(spec.provider.governorTarget);
  if (target !== undefined) options.target = target;
  // Stored failure rows (a failed request, an interrupted call) go to the model as their
  // neutral notes; one row for one row, so `inflightStartIndex` keeps its meaning.
  let result: { messages: readonly Message[]; report: unknown };
  let figures: { estimated: number | null; calibrated: number | null };
  if (spec.govern) {
    // A custom governor is handed the plan it returned last: the session's, kept by the agent's
    // Governor under the session key, or the run's own.
    const { governor } = state.shared;
    const carried = keyed ? (governor.sessionState(spec.sessionKey!)?.cutPlan ?? null) : state.cutPlan;
    const custom = spec.govern(replayFailures(messages), { ...options, cutPlan: carried });
    if (keyed) keepSessionPlan(governor, spec.sessionKey!, custom.cutPlan ?? null);
    else state.cutPlan = custom.cutPlan ?? null;
    result = custom;
    figures = customFigures(custom.report);
  } else {
    // The Governor carries a session's cut plan under its key; a run without one carries its own.
    const governed = state.shared.governor.govern(governedInput(state, messages, prompt), { ...spec.governOptions, ...options, ...(keyed ? {} : { cutPlan: state.cutPlan }) });
    if (!keyed) state.cutPlan = governed.cutPlan;
    result = governed;
    figures = reportFigures(governed.report);
  }
  state.spans?.governance(result.report, iteration, purpose);
  state.emit({ ...state.base(), type: 'governance', iteration, report: result.report, transcriptCount: messages.length, requestCount: result.messages.length });
  // The governor returns its input when nothing changed, and the input may be the live
  // transcript: the provider and hooks get a snapshot, so later appends never show up in a
  // request someone still holds (a provider logging it, a queued retry, an inspector).
  const request = result.messages === messages || result.messages === state.transcript ? messages.slice() : result.messages;
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
  return { messages: request, report: result.report, ...figures };
}

/**
 * Asks the provider for the exact input count of a governed request (its `countTokens`) on a
 * session's first request and whenever the calibrator has no data for the model, and feeds it
 * to the calibrator. Returns whether the calibrator learned from it (the caller governs again,
 * so sizing uses the exact figure). A failed or slow count never fails the turn: it emits
 * `token_count` with the error and the estimate serves.
 */
export async function exactCount(state: RunState, copy: GovernedCopy, tools: readonly ToolDefinition[], iteration: number): Promise<boolean> {
  const { spec } = state;
  const calibrator = spec.calibrator;
  const estimated = copy.estimated;
  if (!calibrator || typeof spec.provider.countTokens !== 'function' || estimated === null || state.exactCountFailed) return false;
  const model = state.model;
  const sessionKey = spec.sessionKey ?? `run:${state.runId}`;
  const counted = state.shared.countedSessions;
  if (counted.has(sessionKey) && calibrator.ratio(model) !== null) return false;
  counted.add(sessionKey);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), spec.countTokensTimeoutMs ?? 15_000);
  const onAbort = (): void => controller.abort();
  state.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const step = await raceSignal(spec.provider.countTokens({ messages: copy.messages, tools, model, signal: controller.signal }), controller.signal);
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
