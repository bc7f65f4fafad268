import type { TargetBehaviour, TargetRule } from '../target-profile.js';
import { PLAIN_ROLES, modelSwitchRules, strictRules, toolPairingRules } from './shared-rules.js';

/** Mistral's tool-call ids: exactly 9 characters of a-z, A-Z, 0-9. */
export const MISTRAL_TOOL_ID_PATTERN = /^[a-zA-Z0-9]{9}$/;

/**
 * Mistral chat (mistral-common's validator): 9-alphanumeric tool-call ids, a fixed table of
 * which role may follow which (never `user` right after `tool`), the last message from the user
 * or a tool.
 */
export const MISTRAL_BEHAVIOUR: TargetBehaviour = Object.freeze({
  target: 'mistral',
  roles: PLAIN_ROLES,
  contentRequired: true,
  strictContent: true,
  toolCallIdPattern: MISTRAL_TOOL_ID_PATTERN,
  toolCallIdRename: 'short-id',
  roleOrder: 'strict',
  assistantBetweenToolAndUser: true,
  dropUnsignedReasoningTurns: false,
  keepsArtifactsOf: [],
} as const);

/** The rules `TARGET_PROFILES.mistral` declares, in order (the steps read MISTRAL_BEHAVIOUR only). */
export function mistralRules(): TargetRule[] {
  return [
    ...toolPairingRules(),
    ...strictRules(),
    { id: 'user-after-tool', reasons: ['assistant-after-tool-results'] },
    { id: 'invalid-tool-call-id', reasons: ['tool-call-id-mapped'] },
    ...modelSwitchRules([]),
  ];
}
