import type { Message } from '@nanobot/schema';
import { callId, resultId, toolCallList } from '../../internal/tool-calls.js';
import { defineStep } from '../step.js';

/**
 * Moves a tool result that is separated from its assistant turn (a user, system or other
 * assistant message in between) back into that turn's group of results. Not in the reference:
 * it keeps such results where they are, which strict providers reject ("tool messages must
 * follow the assistant turn with tool_calls"). Run after {@link dropOrphanToolResults}, so every
 * result answers an earlier call exactly once. Pure: the same array when every result is in place.
 */
export function regroupToolResults(messages: readonly Message[]): Message[] {
  return regroup(messages).messages;
}

/** {@link regroupToolResults} plus the moved results (input objects), for the report. */
export function regroup(messages: readonly Message[]): { messages: Message[]; moved: Message[] } {
  const owner = new Map<string, number>();
  const moved = new Map<number, Message[]>();
  const displaced = new Set<number>();
  let group = -1;
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (msg.role === 'tool') {
      const id = resultId(msg);
      const a = id === null ? undefined : owner.get(id);
      if (a !== undefined && a !== group) {
        displaced.add(i);
        const list = moved.get(a) ?? [];
        list.push(msg);
        moved.set(a, list);
      }
      continue;
    }
    group = -1;
    if (msg.role === 'assistant') {
      const calls = toolCallList(msg);
      if (calls.length > 0) group = i;
      for (const call of calls) {
        const id = callId(call);
        if (id !== null) owner.set(id, i);
      }
    }
  }
  if (displaced.size === 0) return { messages: messages as Message[], moved: [] };
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    if (displaced.has(i)) continue;
    out.push(messages[i]);
    const extra = moved.get(i);
    if (extra === undefined) continue;
    while (i + 1 < messages.length && messages[i + 1].role === 'tool') {
      i++;
      if (!displaced.has(i)) out.push(messages[i]);
    }
    out.push(...extra);
  }
  return { messages: out, moved: [...displaced].map((i) => messages[i]) };
}

/** The step (fixed mode): results separated from their call moved back to it. */
export const regroupToolResultsStep = defineStep({
  name: 'regroupToolResults',
  may: ['reorder'],
  noopOnClean: true,
  keepsClean: true,
  runs: (ctx) => ctx.fixed,
  run: (list) => {
    const { messages, moved } = regroup(list);
    return { messages, toolResults: moved.map((m) => ({ toolCallId: resultId(m) ?? '', name: typeof m.name === 'string' ? m.name : 'tool', action: 'moved' as const })) };
  },
});
