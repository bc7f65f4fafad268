import type { LLMResponse } from '@nanobot/schema';

const EXECUTABLE_FINISH = new Set(['tool_calls', 'function_call', 'stop']);

/**
 * Whether the runner should run the response's tool calls: only when the model finished
 * normally. Calls under `length`, `content_filter`, `refusal`, `error` or an empty reason are
 * truncated or gateway-injected and are not executed (reference `should_execute_tools`).
 */
export function shouldExecuteTools(response: Pick<LLMResponse, 'toolCalls' | 'finishReason'>): boolean {
  return response.toolCalls.length > 0 && EXECUTABLE_FINISH.has(response.finishReason);
}
