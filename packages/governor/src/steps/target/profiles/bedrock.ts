import type { TargetBehaviour, TargetRule } from '../target-profile.js';
import { PLAIN_ROLES, modelSwitchRules, strictRules, toolPairingRules } from './shared-rules.js';
import { ANTHROPIC_TOOL_ID_PATTERN } from './anthropic.js';

/** Amazon Bedrock Converse: a user message first and last, strict alternation, no blank text. */
export const BEDROCK_BEHAVIOUR: TargetBehaviour = Object.freeze({
  target: 'bedrock',
  roles: PLAIN_ROLES,
  contentRequired: false,
  strictContent: true,
  toolCallIdPattern: ANTHROPIC_TOOL_ID_PATTERN,
  toolCallIdRename: 'sanitize',
  roleOrder: 'strict',
  assistantBetweenToolAndUser: false,
  dropUnsignedReasoningTurns: true,
  keepsArtifactsOf: ['bedrock'],
} as const);

/** The rules `TARGET_PROFILES.bedrock` declares, in order (the steps read BEDROCK_BEHAVIOUR only). */
export function bedrockRules(): TargetRule[] {
  return [
    ...toolPairingRules(),
    ...strictRules(),
    { id: 'invalid-tool-call-id', reasons: ['tool-call-id-sanitized'] },
    { id: 'unsigned-reasoning-turn', reasons: ['unsigned-reasoning-only'] },
    ...modelSwitchRules(['bedrock']),
  ];
}
