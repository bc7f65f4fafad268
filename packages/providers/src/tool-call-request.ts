import { pythonJsonDumps, pythonTruthy } from '@nanobot/schema';
import type { ToolCall, ToolCallRequest } from '@nanobot/schema';

/**
 * Whether a parsed call can be executed or replayed at all: its name is a non-empty string.
 * Gateways sometimes send `null`, `""` or objects; such calls are dropped.
 */
export function hasValidToolName(call: { name?: unknown }): boolean {
  return typeof call.name === 'string' && call.name.length > 0;
}

/**
 * The OpenAI wire shape of a call: string arguments kept verbatim, anything else serialised with
 * Python's JSON spelling (so replayed history matches what the reference stored). Extras are
 * copied only when non-empty.
 */
export function toOpenAIToolCall(call: ToolCallRequest): ToolCall {
  const fn: ToolCall['function'] = {
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : pythonJsonDumps(call.arguments),
  };
  if (pythonTruthy(call.function_provider_specific_fields)) fn.provider_specific_fields = call.function_provider_specific_fields;
  const out: ToolCall = { id: call.id, type: 'function', function: fn };
  if (pythonTruthy(call.extra_content)) out.extra_content = call.extra_content;
  if (pythonTruthy(call.provider_specific_fields)) out.provider_specific_fields = call.provider_specific_fields;
  return out;
}
