import { pythonJsonDumps } from '@nanobot/schema';
import type { ToolCall, ToolCallRequest } from '@nanobot/schema';

function present(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'object') return Object.keys(value as object).length > 0;
  return true;
}

/**
 * The persisted (OpenAI wire) shape of a parsed call: string arguments verbatim (the model's
 * own text, even when unparseable), anything else in Python's JSON spelling so stored history
 * matches the reference byte for byte. Provider extras are kept for replay. Pure.
 */
export function toOpenAIToolCall(call: ToolCallRequest): ToolCall {
  const fn: ToolCall['function'] = {
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : pythonJsonDumps(call.arguments ?? {}),
  };
  if (present(call.function_provider_specific_fields)) fn.provider_specific_fields = call.function_provider_specific_fields;
  const out: ToolCall = { id: call.id, type: 'function', function: fn };
  if (present(call.extra_content)) out.extra_content = call.extra_content;
  if (present(call.provider_specific_fields)) out.provider_specific_fields = call.provider_specific_fields;
  return out;
}
