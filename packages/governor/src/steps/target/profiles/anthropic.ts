import type { TargetBehaviour, TargetRule } from '../target-profile.js';
import { PLAIN_ROLES, modelSwitchRules, strictRules, toolPairingRules } from './shared-rules.js';

/** The tool-use id pattern of Anthropic's Messages API (Bedrock's toolUseId too). */
export const ANTHROPIC_TOOL_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

/** Anthropic Messages: instructions only as the system prompt, strict alternation, no blank text. */
export const ANTHROPIC_BEHAVIOUR: TargetBehaviour = Object.freeze({
  target: 'anthropic',
  roles: PLAIN_ROLES,
  contentRequired: false,
  strictContent: true,
  toolCallIdPattern: ANTHROPIC_TOOL_ID_PATTERN,
  toolCallIdRename: 'sanitize',
  roleOrder: 'strict',
  assistantBetweenToolAndUser: false,
  dropUnsignedReasoningTurns: true,
  keepsArtifactsOf: ['anthropic'],
} as const);

/** The rules `TARGET_PROFILES.anthropic` declares, in order (the steps read ANTHROPIC_BEHAVIOUR only). */
export function anthropicRules(): TargetRule[] {
  return [
    ...toolPairingRules(),
    ...strictRules(),
    { id: 'invalid-tool-call-id', reasons: ['tool-call-id-sanitized'] },
    { id: 'unsigned-reasoning-turn', reasons: ['unsigned-reasoning-only'] },
    ...modelSwitchRules(['anthropic']),
    { id: 'server-compaction-anchor' },
  ];
}
