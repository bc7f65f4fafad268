import type { Message } from '@nanobot/schema';
import { declareCallIds, resultId } from '../../internal/tool-calls.js';

/**
 * Index of the first message from which the list is free of tool results whose call is not in
 * view (reference `find_legal_message_start`). 0 means the list is already legal. Used after
 * cutting a history window so it never starts with orphaned tool results.
 */
export function findLegalMessageStart(messages: readonly Message[]): number {
  let declared = new Set<string>();
  let start = 0;
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (msg.role === 'assistant') {
      declareCallIds(msg, declared);
    } else if (msg.role === 'tool') {
      const id = resultId(msg);
      if (id !== null && !declared.has(id)) {
        start = i + 1;
        declared = new Set();
      }
    }
  }
  return start;
}
