import type { TargetBehaviour, TargetRule } from '../target-profile.js';
import { modelSwitchRules } from './shared-rules.js';
import { ARTIFACT_FAMILIES } from '../artifact-family.js';
import { ANTHROPIC_BEHAVIOUR } from './anthropic.js';

/**
 * Legal for OpenAI Chat Completions and Anthropic at once (the default target). Unchanged by the
 * per-provider targets: an aborted reasoning-only turn is kept (choose `'anthropic'` to drop it).
 */
export const ANY_BEHAVIOUR: TargetBehaviour = Object.freeze({
  target: 'any',
  roles: ANTHROPIC_BEHAVIOUR.roles,
  contentRequired: true,
  strictContent: true,
  toolCallIdPattern: ANTHROPIC_BEHAVIOUR.toolCallIdPattern,
  toolCallIdRename: 'sanitize',
  roleOrder: 'strict',
  assistantBetweenToolAndUser: false,
  dropUnsignedReasoningTurns: false,
  // Every family's artifacts pass (today's default output; choose a provider's target to convert them).
  keepsArtifactsOf: ARTIFACT_FAMILIES,
} as const);

/** The 'any' target's rules: OpenAI's and Anthropic's (given: the same rule objects), and every family's model-switch rules. */
export function anyRules(openai: readonly TargetRule[], anthropic: readonly TargetRule[]): TargetRule[] {
  return [...openai.filter((r) => !r.id.startsWith('foreign-')), ...anthropic.filter((r) => !openai.some((o) => o.id === r.id) && r.id !== 'unsigned-reasoning-turn'), ...modelSwitchRules(ARTIFACT_FAMILIES)];
}
