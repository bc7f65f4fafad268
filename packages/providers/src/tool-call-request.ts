import { pythonJsonDumps } from '@nanobot/schema';
import type { ToolCall, ToolCallRequest } from '@nanobot/schema';

/** Python truthiness for the optional extras: `null`, `{}` and `[]` count as absent. */
function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

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
  if (truthy(call.function_provider_specific_fields)) fn.provider_specific_fields = call.function_provider_specific_fields;
  const out: ToolCall = { id: call.id, type: 'function', function: fn };
  if (truthy(call.extra_content)) out.extra_content = call.extra_content;
  if (truthy(call.provider_specific_fields)) out.provider_specific_fields = call.provider_specific_fields;
  return out;
}
