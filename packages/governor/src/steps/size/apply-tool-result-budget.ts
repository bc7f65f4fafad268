import { pythonStr, type Message, pythonTruthy } from '@nanobot/schema';
import type { ArtifactStore } from '../../offload/artifact-store.js';
import { normalizeToolResultDetailed, type NormalizedToolResult } from './normalize-tool-result.js';
import { DEFAULT_MAX_TOOL_RESULT_CHARS } from '../../constants.js';
import { defineStep, type StepContext } from '../step.js';
import { callArgumentsLookup, toolResultRules, type ToolResultRules } from './tool-rules.js';

/** Options of {@link applyToolResultBudget}. */
export interface ToolResultBudgetOptions {
  maxToolResultChars: number;
  artifactStore?: ArtifactStore | null;
  sessionKey?: string | null;
  /** Which tools get special treatment and the wording (default: the reference's, by name). See `normalizeToolResult`. */
  rules?: ToolResultRules;
  /** The arguments of the call a result answers (for a rereadable tool's continuation hint). */
  argumentsOf?: (toolCallId: string) => unknown;
}

/** One tool result the budget step changed. */
export interface ToolResultChange {
  toolCallId: string;
  name: string;
  action: 'offloaded' | 'truncated' | 'empty-marker' | 'offload-failed';
  location?: string;
  originalChars?: number;
  error?: string;
}

/** What the budget step reports for one result `normalizeToolResultDetailed` handled. */
export function describeResult(id: string, name: string, info: NormalizedToolResult): ToolResultChange[] {
  const out: ToolResultChange[] = [];
  if (info.emptyMarker) out.push({ toolCallId: id, name, action: 'empty-marker' });
  if (info.offloadError !== undefined) out.push({ toolCallId: id, name, action: 'offload-failed', error: info.offloadError });
  const size = info.originalChars !== undefined ? { originalChars: info.originalChars } : {};
  if (info.offloadedTo !== undefined) out.push({ toolCallId: id, name, action: 'offloaded', location: info.offloadedTo, ...size });
  if (info.truncated) out.push({ toolCallId: id, name, action: 'truncated', ...size });
  return out;
}

/** The id and name a tool result is normalised under (`tool_<index>` and `tool` when missing). */
export function resultKey(msg: Message, index: number): { id: string; name: string } {
  const rawId = (msg as { tool_call_id?: unknown }).tool_call_id;
  return { id: pythonTruthy(rawId) ? pythonStr(rawId) : `tool_${index}`, name: pythonTruthy(msg.name) ? pythonStr(msg.name) : 'tool' };
}

/**
 * {@link applyToolResultBudget} that also lists what changed. Writes offloaded results through
 * the store (synchronously); never mutates its input.
 */
export function applyToolResultBudgetDetailed(messages: readonly Message[], given: ToolResultBudgetOptions): { messages: Message[]; changes: ToolResultChange[] } {
  const options = given.argumentsOf ? given : { ...given, argumentsOf: callArgumentsLookup(messages) };
  let out: Message[] | null = null;
  const changes: ToolResultChange[] = [];
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (msg.role !== 'tool') {
      out?.push(msg);
      continue;
    }
    const { id, name } = resultKey(msg, i);
    const info = normalizeToolResultDetailed(id, name, msg.content, options);
    if (info.emptyMarker || info.offloadedTo !== undefined || info.truncated || info.offloadError !== undefined) changes.push(...describeResult(id, name, info));
    if (info.content !== msg.content) {
      out ??= messages.slice(0, i);
      out.push({ ...msg, content: info.content } as Message);
    } else {
      out?.push(msg);
    }
  }
  return { messages: out ?? (messages as Message[]), changes };
}

/**
 * Re-applies the per-result size rules to every tool message (reference
 * `apply_tool_result_budget`): {@link normalizeToolResult} with the message's id (or
 * `tool_<index>`) and name (or `tool`). Pure apart from writes through `artifactStore`; the
 * same array when nothing changes; unchanged messages are the input objects.
 */
export function applyToolResultBudget(messages: readonly Message[], options: ToolResultBudgetOptions): Message[] {
  return applyToolResultBudgetDetailed(messages, options).messages;
}

/** The budget step's options in a govern call. */
export function toolResultBudgetOptions(ctx: StepContext): ToolResultBudgetOptions {
  return {
    maxToolResultChars: ctx.options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
    artifactStore: ctx.options.artifactStore ?? null,
    sessionKey: ctx.options.sessionKey ?? null,
    rules: toolResultRules(ctx.options),
    argumentsOf: callArgumentsLookup(ctx.history),
  };
}

/** The step: every result within `maxToolResultChars` (offloaded through the store, else cut). */
export const applyToolResultBudgetStep = defineStep({
  name: 'applyToolResultBudget',
  may: ['rewrite'],
  noopOnClean: false,
  keepsClean: true,
  runs: () => true,
  run: (list, ctx) => {
    const { messages, changes } = applyToolResultBudgetDetailed(list, toolResultBudgetOptions(ctx));
    return { messages, toolResults: changes };
  },
});
