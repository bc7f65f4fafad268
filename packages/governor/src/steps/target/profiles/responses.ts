import type { TargetBehaviour, TargetRule } from '../target-profile.js';
import { OPENAI_CHAT_SHAPE, chatContentRules, modelSwitchRules, toolPairingRules } from './shared-rules.js';

/**
 * The OpenAI Responses API: every `function_call_output` has its `function_call`, content
 * present, a user turn first; reasoning items stay with the item that followed them (the
 * governor keeps an assistant turn's parts together and never reorders them).
 */
export const RESPONSES_BEHAVIOUR: TargetBehaviour = Object.freeze({
  target: 'responses',
  ...OPENAI_CHAT_SHAPE,
  keepsArtifactsOf: ['responses'],
  reasoningSummaryRequired: true,
} as const);

/** The rules `TARGET_PROFILES.responses` declares, in order (the steps read RESPONSES_BEHAVIOUR only). */
export function responsesRules(): TargetRule[] {
  return [
    ...toolPairingRules(),
    ...chatContentRules(),
    { id: 'reasoning-with-its-item' },
    ...modelSwitchRules(['responses']),
    { id: 'reasoning-summary-missing', reasons: ['reasoning-summary-added'] },
    { id: 'server-compaction-anchor' },
  ];
}
