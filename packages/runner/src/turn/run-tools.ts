import { TOOL_INTERRUPTED_NOTE, toolFailureRow } from '@nanobot/schema';
import type { Message, MessageContent, ToolCall, ToolCallRequest } from '@nanobot/schema';
import type { Span } from '@opentelemetry/api';
import { ABORTED, createToolContext, raceSignal } from '@nanobot/tools-core';
import { classifyViolation } from '../classify-violation.js';
import { repeatedExternalLookupError } from '../external-lookup.js';
import { planToolBatches } from '../plan-tool-batches.js';
import type { ToolOverride } from '../runner-hooks.js';
import type { ToolEventStatus } from '../runner-events.js';
import type { RunnerToolRegistry } from '../runner-ports.js';
import { SSRF_NOTE, TOOL_ERROR_HINT, workspaceEscalationMessage } from '../runner-texts.js';
import { contentText, isEmptyContent } from '../tool-outcome.js';
import { workspaceTargetSignature } from '../workspace-target-signature.js';
import { callHooks } from './run-hooks.js';
import { describeError, flattenDetail, successDetail, type RunState } from './run-state.js';

interface CallOutcome {
  content: MessageContent;
  status: ToolEventStatus;
  detail: string;
  /** Text of a failure that ends the run when `failOnToolError` is on. */
  fatal: string | null;
  durationMs: number;
}

/** What running one assistant turn's calls came to. */
export interface ToolBatchOutcome {
  /** One tool message per call, in call order (interrupted calls answered by a failure row). */
  results: Message[];
  /** The failure that ends the run (`failOnToolError`), else null. */
  fatal: string | null;
  /** The run was aborted while the calls ran. */
  abortedDuring: boolean;
  /** A critical hook's failure (the caller rethrows it after appending the results), else null. */
  thrown: unknown;
}

function isConcurrencySafe(tools: RunnerToolRegistry, name: string): boolean {
  const tool = tools.get(name);
  if (!tool) return false;
  if (typeof tool.concurrencySafe === 'boolean') return tool.concurrencySafe;
  return tool.readOnly === true && tool.exclusive !== true;
}

/**
 * Runs every call of one assistant turn: consecutive concurrency-safe calls together when the
 * spec allows, the rest one by one; returns one tool message per call in call order. Never
 * throws: a critical hook's failure comes back as `thrown`.
 */
export async function runTools(state: RunState, requests: readonly ToolCallRequest[], calls: readonly ToolCall[], iteration: number): Promise<ToolBatchOutcome> {
  const { spec } = state;
  const outcomes: (CallOutcome | undefined)[] = new Array(requests.length).fill(undefined);
  // When each call started, so a call cut off by an abort still reports how long it ran.
  const startedAt: (number | undefined)[] = new Array(requests.length).fill(undefined);
  const toolSpans: (Span | undefined)[] = new Array(requests.length).fill(undefined);
  const batches = planToolBatches(requests, (r) => isConcurrencySafe(spec.tools, r.name), spec.concurrentTools === true);
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
        outcome = await execute(state, requests[index], calls[index], iteration);
      } catch (error) {
        // A critical hook failed: the call gets an error result, then the run ends.
        if (thrown === null) thrown = error;
        outcome = { content: `Error: ${describeError(error)}`, status: 'error', detail: flattenDetail(describeError(error), 120), fatal: null, durationMs: 0 };
      }
      // A call still running when the run was aborted is reported once, as interrupted, below.
      if (finalized) return;
      outcomes[index] = outcome;
      recordEnd(state, requests[index], calls[index], iteration, outcome, started);
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
      recordEnd(state, requests[i], calls[i], iteration, outcome, startedAt[i] ?? performance.now());
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

function recordEnd(state: RunState, request: ToolCallRequest, call: ToolCall, iteration: number, outcome: CallOutcome, started: number): void {
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

async function execute(state: RunState, request: ToolCallRequest, call: ToolCall, iteration: number): Promise<CallOutcome> {
  const { spec } = state;
  const name = request.name;
  const repeated = repeatedExternalLookupError(name, request.arguments, state.lookupCounts);
  if (repeated !== null) {
    return failure(repeated + TOOL_ERROR_HINT, 'repeated external lookup blocked', repeated);
  }
  const prepared = spec.tools.prepareCall(name, request.arguments);
  if (!prepared.ok) {
    const text = prepared.error;
    const colon = text.indexOf(': ');
    const detail = flattenDetail(colon >= 0 ? text.slice(colon + 2) : text, 120);
    return failure(text + TOOL_ERROR_HINT, detail, text);
  }
  const override = (await callHooks(state, 'beforeTool', (h) =>
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
    const after = (await callHooks(state, 'afterTool', (h) =>
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
    const violation = violationOutcome(state, name, request.arguments, violationSource, text, payload);
    if (violation) return violation;
    return failure(payload, flattenDetail(text, 120), text);
  }
  if (isEmptyContent(content)) content = `(${name} completed with no output)`;
  const normalised = spec.normalizeToolResult ? spec.normalizeToolResult(content, { name, id: call.id }) : content;
  return { content: normalised, status: 'ok', detail: successDetail(content), fatal: null, durationMs: 0 };
}

function failure(payload: string, detail: string, fatalText: string): CallOutcome {
  const fatal = /^error\b/i.test(fatalText.trim()) ? fatalText.trim() : `Error: ${fatalText.trim()}`;
  return { content: payload, status: 'error', detail, fatal, durationMs: 0 };
}

/** Workspace/SSRF refusals: never fatal, SSRF gets its note, workspace attempts are throttled. */
function violationOutcome(state: RunState, name: string, args: unknown, source: unknown, text: string, softPayload: string): CallOutcome | null {
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
