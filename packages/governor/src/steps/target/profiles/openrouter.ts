import type { TargetBehaviour, TargetRule } from '../target-profile.js';
import { OPENAI_CHAT_SHAPE, chatContentRules, modelSwitchRules, toolPairingRules } from './shared-rules.js';

/**
 * OpenRouter (OpenAI-shaped, many providers behind it): OpenAI's content rules, and
 * `reasoning_details` sent back unmodified (the governor never edits or moves them).
 */
export const OPENROUTER_BEHAVIOUR: TargetBehaviour = Object.freeze({
  target: 'openrouter',
  ...OPENAI_CHAT_SHAPE,
  keepsArtifactsOf: ['openrouter'],
  currentTurnReasoning: Object.freeze([
    Object.freeze({ model: /^google\/gemini-([3-9]|\d\d)/, needs: 'call-signature' as const }),
    Object.freeze({ model: /^anthropic\/claude.*:thinking$/, needs: 'signed-reasoning' as const }),
  ]),
} as const);

/** The rules `TARGET_PROFILES.openrouter` declares, in order (the steps read OPENROUTER_BEHAVIOUR only). */
export function openrouterRules(): TargetRule[] {
  return [
    ...toolPairingRules(),
    ...chatContentRules(),
    { id: 'reasoning-details-unmodified' },
    ...modelSwitchRules(['openrouter']),
    { id: 'current-turn-reasoning', reasons: ['current-turn-steps-as-text'] },
  ];
}
