import type { Message } from '@nanobot/schema';
import type { ReportedMessage } from '../../report/govern-report.js';
import { ref } from '../../report/reported-message.js';
import { NO_CACHE, type DerivationCache } from '../derivation-cache.js';
import { defineStep } from '../step.js';

/** Text of the assistant turn placed between tool results and a user message (Mistral, Gemini). */
export const TOOL_RESULTS_RECEIVED = '(tool results received)';

/**
 * The marked assistant turn placed before `user` (which follows tool results): with a cache, one
 * object per user message, so governing the same history again yields the same list.
 */
export function acknowledgementBefore(user: Message, derive: DerivationCache): Message {
  return derive.derive(user, 'after-tool-results', (): Message => ({ role: 'assistant', content: TOOL_RESULTS_RECEIVED }));
}

/**
 * Puts a marked assistant turn ({@link TOOL_RESULTS_RECEIVED}) between a `tool` message and a
 * `user` message right after it, for APIs that refuse a user turn there (Mistral: "Unexpected
 * role 'user' after role 'tool'"; Gemini, where the results and the user's words would be two
 * user contents in a row). Pure: the same array when no user message follows a tool message;
 * otherwise a new array whose other messages are the input objects, and the output indices of
 * the turns it added.
 */
export function separateToolResultsFromUser(messages: readonly Message[], derive: DerivationCache = NO_CACHE): { messages: Message[]; added: number[] } {
  let out: Message[] | null = null;
  const added: number[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (i > 0 && m.role === 'user' && messages[i - 1].role === 'tool') {
      out ??= messages.slice(0, i);
      added.push(out.length);
      out.push(acknowledgementBefore(m, derive));
    }
    out?.push(m);
  }
  return { messages: out ?? (messages as Message[]), added };
}

/** The step (targets whose profile sets `assistantBetweenToolAndUser`); runs after the role order is settled. */
export const separateToolResultsFromUserStep = defineStep({
  name: 'separateToolResultsFromUser',
  may: ['insert'],
  noopOnClean: false,
  keepsClean: true,
  runs: (ctx) => ctx.profile?.assistantBetweenToolAndUser === true,
  run: (list, ctx) => {
    const { messages, added } = separateToolResultsFromUser(list, ctx.derive);
    if (added.length === 0) return { messages };
    const entries: ReportedMessage[] = added.map((at) => ref(messages[at], at, 'assistant-after-tool-results'));
    return { messages, removed: [], added: entries };
  },
});
