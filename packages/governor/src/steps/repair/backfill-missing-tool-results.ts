import { pythonStr, type Message } from '@nanobot/schema';
import { BACKFILL_CONTENT } from '../../constants.js';
import { callId, resultId, toolCallList } from '../../internal/tool-calls.js';
import { defineStep } from '../step.js';

function backfillName(call: unknown): string {
  const fn = (call as { function?: unknown }).function;
  if (fn !== null && typeof fn === 'object' && !Array.isArray(fn)) return pythonStr((fn as { name?: unknown }).name ?? null);
  return '';
}

/**
 * Inserts a synthetic result (`BACKFILL_CONTENT`) for every tool call that has none, right after
 * its assistant turn and the results that already follow it, so every call is answered. Pure:
 * the same array when every call is answered; existing messages are the input objects.
 */
export function backfillMissingToolResults(messages: readonly Message[]): Message[] {
  const answered = new Set<string>();
  for (const msg of messages) {
    if (msg.role === 'tool') {
      const id = resultId(msg);
      if (id !== null) answered.add(id);
    }
  }
  const missingAt = new Map<number, Message[]>();
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (msg.role !== 'assistant') continue;
    for (const call of toolCallList(msg)) {
      const id = callId(call);
      if (id === null || answered.has(id)) continue;
      // A repeated missing id is answered once: the first backfill satisfies it.
      answered.add(id);
      const list = missingAt.get(i) ?? [];
      list.push({ role: 'tool', tool_call_id: id, name: backfillName(call), content: BACKFILL_CONTENT });
      missingAt.set(i, list);
    }
  }
  if (missingAt.size === 0) return messages as Message[];
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    out.push(messages[i]);
    const fills = missingAt.get(i);
    if (fills === undefined) continue;
    while (i + 1 < messages.length && messages[i + 1].role === 'tool') out.push(messages[++i]);
    out.push(...fills);
  }
  return out;
}

/**
 * The step: a result for every unanswered call (runs again after snipping). Not a no-op on a
 * clean list: a clean list may end with a turn whose calls are still open (their results are
 * appended).
 */
export const backfillMissingToolResultsStep = defineStep({
  name: 'backfillMissingToolResults',
  may: ['insert'],
  noopOnClean: false,
  keepsClean: true,
  runs: () => true,
  run: (list) => ({ messages: backfillMissingToolResults(list) }),
});
