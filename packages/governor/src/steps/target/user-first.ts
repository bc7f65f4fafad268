import type { Message } from '@nanobot/schema';
import { ref } from '../../report/reported-message.js';
import { NO_CACHE, type DerivationCache } from '../derivation-cache.js';
import { defineStep } from '../step.js';
import { continuedTurnBefore } from './enforce-role-alternation.js';
import { isInstructionRole } from './govern-target.js';

/**
 * A user turn first after the instructions: the `(conversation continued)` turn is placed before
 * a leading assistant or tool message. Pure: the same array when the first turn is a user's.
 */
export function userFirst(messages: readonly Message[], derive: DerivationCache = NO_CACHE): { messages: Message[]; at: number | null } {
  const first = messages.findIndex((m) => !isInstructionRole(m.role));
  if (first < 0 || messages[first].role === 'user') return { messages: messages as Message[], at: null };
  return { messages: [...messages.slice(0, first), continuedTurnBefore(messages[first], derive), ...messages.slice(first)], at: first };
}

/**
 * The role step for targets that only need a user turn first (OpenAI chat); reported under the
 * role step's name, `enforceRoleAlternation`.
 */
export const userFirstStep = defineStep({
  name: 'enforceRoleAlternation',
  may: ['insert'],
  noopOnClean: false,
  keepsClean: false,
  runs: (ctx) => ctx.profile?.roleOrder === 'user-first',
  run: (list, ctx) => {
    const { messages, at } = userFirst(list, ctx.derive);
    return at === null ? { messages } : { messages, removed: [], added: [ref(messages[at], at, 'conversation-continued')] };
  },
});
