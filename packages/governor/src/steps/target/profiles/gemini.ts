import type { TargetBehaviour, TargetRule } from '../target-profile.js';
import { PLAIN_ROLES, modelSwitchRules, strictRules, toolPairingRules } from './shared-rules.js';
import { ANTHROPIC_TOOL_ID_PATTERN } from './anthropic.js';

/**
 * Gemini generateContent (through `@ai-sdk/google`, or the OpenAI-compatible endpoint): contents
 * alternate user/model, a function-response turn comes right after its call turn, no empty parts
 * or text; thought signatures stay on their call, byte-exact (the governor never moves, merges
 * into another call or invents one).
 */
export const GEMINI_BEHAVIOUR: TargetBehaviour = Object.freeze({
  target: 'gemini',
  roles: PLAIN_ROLES,
  contentRequired: true,
  strictContent: true,
  toolCallIdPattern: ANTHROPIC_TOOL_ID_PATTERN,
  toolCallIdRename: 'sanitize',
  roleOrder: 'strict',
  assistantBetweenToolAndUser: true,
  dropUnsignedReasoningTurns: false,
  currentTurnSignaturePlaceholder: 'skip_thought_signature_validator',
  keepsArtifactsOf: ['gemini'],
} as const);

/** The rules `TARGET_PROFILES.gemini` declares, in order (the steps read GEMINI_BEHAVIOUR only). */
export function geminiRules(): TargetRule[] {
  return [
    ...toolPairingRules(),
    ...strictRules(),
    { id: 'user-after-tool', reasons: ['assistant-after-tool-results'] },
    { id: 'invalid-tool-call-id', reasons: ['tool-call-id-sanitized'] },
    { id: 'thought-signature' },
    { id: 'current-turn-signature', reasons: ['thought-signature-placeholder'] },
    ...modelSwitchRules(['gemini']),
  ];
}
