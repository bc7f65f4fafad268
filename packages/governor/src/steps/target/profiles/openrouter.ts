import type { TargetProfile } from '../target-profile.js';
import { OPENAI_CHAT_SHAPE, chatContentRules, modelSwitchRules, ruleList, toolPairingRules } from './shared-rules.js';

/**
 * OpenRouter (OpenAI-shaped, many providers behind it): OpenAI's content rules, and
 * `reasoning_details` sent back unmodified (the governor never edits or moves them).
 */
export const OPENROUTER_PROFILE: TargetProfile = Object.freeze({
  target: 'openrouter',
  rules: ruleList([
    ...toolPairingRules(),
    ...chatContentRules(),
    { id: 'reasoning-details-unmodified' },
    ...modelSwitchRules(['openrouter']),
    { id: 'current-turn-reasoning', reasons: ['current-turn-steps-as-text'] },
  ]),
  ...OPENAI_CHAT_SHAPE,
  keepsArtifactsOf: ['openrouter'],
  currentTurnReasoning: Object.freeze([
    Object.freeze({ model: /^google\/gemini-([3-9]|\d\d)/, needs: 'call-signature' as const }),
    Object.freeze({ model: /^anthropic\/claude.*:thinking$/, needs: 'signed-reasoning' as const }),
  ]),
} as const);
