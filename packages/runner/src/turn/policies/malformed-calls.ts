import type { LLMResponse, ToolDefinition } from '@nanobot/schema';
import { MALFORMED_TOOL_CALLS_PROMPT } from '../../runner-texts.js';
import { governRequest, type GovernedCopy } from '../govern-request.js';
import { requestModel, type ModelOutcome } from '../request-model.js';
import type { RunState } from '../run-state.js';

/**
 * Drops tool calls without a name. A response that asked for tools and has none left is
 * `allMalformed` (its finish becomes `stop`); the provider's object is not modified. Pure.
 */
export function dropMalformed(response: LLMResponse): { response: LLMResponse; allMalformed: boolean } {
  const valid = response.toolCalls.filter((c) => typeof c.name === 'string' && c.name.length > 0);
  const wantedTools = response.finishReason === 'tool_calls' || response.finishReason === 'function_call';
  // Providers already drop nameless calls; a tool_calls finish with none left means the same.
  if (valid.length === response.toolCalls.length && !(valid.length === 0 && wantedTools)) return { response, allMalformed: false };
  const allMalformed = valid.length === 0 && wantedTools;
  const finishReason = valid.length === 0 && wantedTools ? 'stop' : response.finishReason;
  return { response: { ...response, toolCalls: valid, finishReason, providerState: undefined }, allMalformed };
}

/** The note appended for the retry, quoting what the model said beside its malformed calls. Pure. */
export function malformedRetryPrompt(content: string | null): string {
  const text = (content ?? '').trim();
  return text === '' ? MALFORMED_TOOL_CALLS_PROMPT : `${MALFORMED_TOOL_CALLS_PROMPT}\n\nPrevious assistant text before the malformed calls:\n${text}`;
}

/**
 * The malformed-call rule (runner.md §3), as the turn's request: malformed calls are dropped;
 * when all were, the request is retried once with a note, then once more without tools.
 */
export async function requestWithMalformedRecovery(state: RunState, copy: GovernedCopy, tools: readonly ToolDefinition[], iteration: number): Promise<ModelOutcome> {
  const first = await requestModel(state, copy, tools, iteration, 'turn');
  if (first.kind === 'aborted') return first;
  const cleaned = dropMalformed(first.response);
  if (!cleaned.allMalformed) return { ...first, response: cleaned.response };
  state.emit({ ...state.base(), type: 'retry', iteration, reason: 'malformed_tool_calls' });
  const retry = governRequest(state, { role: 'user', content: malformedRetryPrompt(first.response.content) }, tools, iteration, 'malformed_retry');
  const second = await requestModel(state, retry, tools, iteration, 'malformed_retry');
  if (second.kind === 'aborted') return second;
  const cleanedSecond = dropMalformed(second.response);
  if (!cleanedSecond.allMalformed) return { ...second, response: cleanedSecond.response };
  const third = await requestModel(state, retry, [], iteration, 'malformed_retry');
  if (third.kind === 'aborted') return third;
  return { ...third, response: dropMalformed(third.response).response };
}
