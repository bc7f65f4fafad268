import type { TargetProfile } from '../target-profile.js';
import { OPENAI_CHAT_SHAPE, chatContentRules, ruleList, toolPairingRules } from './shared-rules.js';

const SOURCE = 'https://openrouter.ai/docs/api-reference/chat-completion';

/**
 * OpenRouter (OpenAI-shaped, many providers behind it): OpenAI's content rules, and
 * `reasoning_details` sent back unmodified (the governor never edits or moves them).
 */
export const OPENROUTER_PROFILE: TargetProfile = Object.freeze({
  target: 'openrouter',
  rules: ruleList([
    ...toolPairingRules(SOURCE),
    ...chatContentRules(SOURCE),
    {
      id: 'reasoning-details-unmodified',
      requires: '"the reasoning_details ... must be passed back unmodified"',
      source: 'https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks',
      does: 'keeps `reasoning_details` byte-exact on the turn they came with',
    },
  ]),
  ...OPENAI_CHAT_SHAPE,
} as const);
