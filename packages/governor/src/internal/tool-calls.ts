// Read access to tool calls as persisted: histories may hold malformed shapes (a dict or a
// string instead of a list, non-object calls, int ids), so nothing here trusts the types.
import { pythonStr, type Message, pythonTruthy } from '@nanobot/schema';

/** The raw `tool_calls` value when it is a non-empty list, else an empty array. */
export function toolCallList(message: Message): readonly unknown[] {
  const calls = (message as { tool_calls?: unknown }).tool_calls;
  return Array.isArray(calls) ? calls : [];
}

/** Python truthiness of `message.get("tool_calls")` (a dict or string counts as present). */
export function hasToolCallsValue(message: Message): boolean {
  return pythonTruthy((message as { tool_calls?: unknown }).tool_calls);
}

/** The stringified id of a call when it is truthy (reference: `str(tc.get("id"))`), else null. */
export function callId(call: unknown): string | null {
  if (call === null || typeof call !== 'object' || Array.isArray(call)) return null;
  const id = (call as { id?: unknown }).id;
  return pythonTruthy(id) ? pythonStr(id) : null;
}

/** Adds the ids of an assistant message's calls (those {@link callId} accepts) to `declared`. */
export function declareCallIds(message: Message, declared: Set<string>): void {
  for (const call of toolCallList(message)) {
    const id = callId(call);
    if (id !== null) declared.add(id);
  }
}

/** The stringified `tool_call_id` of a result when truthy, else null. */
export function resultId(message: Message): string | null {
  const id = (message as { tool_call_id?: unknown }).tool_call_id;
  return pythonTruthy(id) ? pythonStr(id) : null;
}

/** Name of a call: `function.name` when `function` is an object, else a top-level `name`. */
export function callName(call: unknown): unknown {
  if (call === null || typeof call !== 'object' || Array.isArray(call)) return undefined;
  const fn = (call as { function?: unknown }).function;
  if (fn !== null && typeof fn === 'object' && !Array.isArray(fn)) return (fn as { name?: unknown }).name;
  return (call as { name?: unknown }).name;
}

/** Reference validity rule: an object whose name is a non-empty string. */
export function isValidToolCall(call: unknown): boolean {
  const name = callName(call);
  return typeof name === 'string' && name.length > 0;
}
