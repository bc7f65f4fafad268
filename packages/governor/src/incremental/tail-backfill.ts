// The backfill step on a clean list whose last turn's calls are still open (a runner's request
// while its tools run): the missing results are appended, as backfillMissingToolResults would,
// and the same objects (and the same list) are handed out while the history stays the same, so
// estimates stay cached and the prompt byte-stable.
import { pythonStr, type Message } from '@nanobot/schema';
import { BACKFILL_CONTENT } from '../constants.js';
import type { ReportedMessage } from '../report/govern-report.js';
import { ref } from '../report/reported-message.js';
import type { DerivationCache } from '../steps/derivation-cache.js';
import type { AppendedLists } from './appended-lists.js';

/** What backfillMissingToolResults appends for the still-open calls of the last turn. */
function fillsFor(turn: Message, open: ReadonlySet<string>, derive: DerivationCache): Message[] {
  return derive.derive(turn, `fills:${[...open].join('\u0000')}`, () => {
    const fills: Message[] = [];
    for (const call of turn.tool_calls ?? []) {
      if (!open.has(call.id)) continue;
      const fn = call.function as unknown;
      const name = fn !== null && typeof fn === 'object' && !Array.isArray(fn) ? pythonStr((fn as { name?: unknown }).name ?? null) : '';
      fills.push({ role: 'tool', tool_call_id: call.id, name, content: BACKFILL_CONTENT });
    }
    return fills;
  });
}

/** `messages` with the results of the open tail appended, and the report's entries for them. */
export function backfillOpenTail(
  messages: readonly Message[],
  tail: { index: number; ids: ReadonlySet<string> },
  derive: DerivationCache,
  appended: AppendedLists,
): { messages: Message[]; removed: ReportedMessage[]; added: ReportedMessage[] } {
  const fills = fillsFor(messages[tail.index], tail.ids, derive);
  const at = messages.length;
  return { messages: appended.append(messages, fills), removed: [], added: fills.map((m, j) => ref(m, at + j)) };
}
