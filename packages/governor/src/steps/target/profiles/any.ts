import type { TargetProfile } from '../target-profile.js';
import { modelSwitchRules, ruleList } from './shared-rules.js';
import { ARTIFACT_FAMILIES } from '../artifact-family.js';
import { ANTHROPIC_PROFILE } from './anthropic.js';
import { OPENAI_PROFILE } from './openai.js';

/**
 * Legal for OpenAI Chat Completions and Anthropic at once (the default target). Unchanged by the
 * per-provider targets: an aborted reasoning-only turn is kept (choose `'anthropic'` to drop it).
 */
export const ANY_PROFILE: TargetProfile = Object.freeze({
  target: 'any',
  rules: ruleList([...OPENAI_PROFILE.rules.filter((r) => !r.id.startsWith('foreign-')), ...ANTHROPIC_PROFILE.rules.filter((r) => !OPENAI_PROFILE.rules.some((o) => o.id === r.id) && r.id !== 'unsigned-reasoning-turn'), ...modelSwitchRules(ARTIFACT_FAMILIES)]),
  roles: ANTHROPIC_PROFILE.roles,
  contentRequired: true,
  strictContent: true,
  toolCallIdPattern: ANTHROPIC_PROFILE.toolCallIdPattern,
  toolCallIdRename: 'sanitize',
  roleOrder: 'strict',
  assistantBetweenToolAndUser: false,
  dropUnsignedReasoningTurns: false,
  // Every family's artifacts pass (today's default output; choose a provider's target to convert them).
  keepsArtifactsOf: ARTIFACT_FAMILIES,
} as const);
