import { randomUUID } from 'node:crypto';
import type { ToolCallRequest } from '@nanobot/schema';
import type { RunState } from './run-state.js';

/**
 * Call ids must be unique in the whole transcript, or a replay pairs results with the wrong
 * call. Some models and gateways reuse ids across turns (`call_0` every time): such calls get
 * a fresh id before they are stored. The provider's objects are not modified.
 */
export function uniqueCallIds(state: RunState, requests: readonly ToolCallRequest[]): ToolCallRequest[] {
  if (state.usedCallIds === null) {
    state.usedCallIds = new Set();
    for (const message of state.transcript) for (const c of message.tool_calls ?? []) state.usedCallIds.add(c.id);
  }
  const used = state.usedCallIds;
  return requests.map((request) => {
    let id = request.id;
    while (typeof id !== 'string' || id === '' || used.has(id)) id = `call_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    used.add(id);
    return id === request.id ? request : { ...request, id };
  });
}
