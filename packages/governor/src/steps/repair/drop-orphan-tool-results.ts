import type { Message } from '@nanobot/schema';
import { declareCallIds, resultId } from '../../internal/tool-calls.js';
import { defineStep } from '../step.js';

/**
 * Drops tool results that answer nothing: no id, an id not declared by an earlier assistant
 * call (a result before its call counts as an orphan), or an id already answered (the first
 * result wins). Pure: the same array when nothing is dropped; kept messages are the input objects.
 */
export function dropOrphanToolResults(messages: readonly Message[]): Message[] {
  const declared = new Set<string>();
  const fulfilled = new Set<string>();
  let out: Message[] | null = null;
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (msg.role === 'assistant') {
      declareCallIds(msg, declared);
    } else if (msg.role === 'tool') {
      const id = resultId(msg);
      if (id === null || !declared.has(id) || fulfilled.has(id)) {
        out ??= messages.slice(0, i);
        continue;
      }
      fulfilled.add(id);
    }
    out?.push(msg);
  }
  return out ?? (messages as Message[]);
}

/** The step: drops results that answer nothing (runs again after snipping). */
export const dropOrphanToolResultsStep = defineStep({
  name: 'dropOrphanToolResults',
  may: ['drop'],
  noopOnClean: true,
  keepsClean: true,
  runs: () => true,
  run: (list) => ({ messages: dropOrphanToolResults(list) }),
});
