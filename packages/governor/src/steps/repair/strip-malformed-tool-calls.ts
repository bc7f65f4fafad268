import { pythonTruthy } from '@nanobot/schema';
import type { ToolCall, Message } from '@nanobot/schema';
import { hasToolCallsValue, isValidToolCall } from '../../internal/tool-calls.js';
import { defineStep } from '../step.js';

/**
 * Removes tool calls without a usable name (`function.name`, or a flat `name`, must be a
 * non-empty string). An assistant turn left with no calls and no content is dropped; its
 * dangling results are removed later by {@link dropOrphanToolResults}. Pure: the same array when
 * nothing changes; untouched messages are the input objects.
 */
export function stripMalformedToolCalls(messages: readonly Message[]): Message[] {
  let out: Message[] | null = null;
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (msg.role === 'assistant' && hasToolCallsValue(msg)) {
      const raw = (msg as { tool_calls?: unknown }).tool_calls;
      const calls = Array.isArray(raw) ? raw : [];
      const valid = calls.filter(isValidToolCall);
      if (valid.length !== calls.length || !Array.isArray(raw)) {
        out ??= messages.slice(0, i);
        if (valid.length > 0) {
          out.push({ ...msg, tool_calls: valid as ToolCall[] });
        } else if (pythonTruthy(msg.content)) {
          const { tool_calls: _drop, ...rest } = msg;
          out.push(rest as Message);
        }
        continue;
      }
    }
    out?.push(msg);
  }
  return out ?? (messages as Message[]);
}

/** The step: removes nameless calls (and turns left empty). */
export const stripMalformedToolCallsStep = defineStep({
  name: 'stripMalformedToolCalls',
  may: ['drop', 'rewrite'],
  noopOnClean: true,
  keepsClean: true,
  runs: () => true,
  run: (list) => ({ messages: stripMalformedToolCalls(list) }),
});
