import type { TargetBehaviour, TargetRule } from '../target-profile.js';
import { OPENAI_CHAT_SHAPE, chatContentRules, modelSwitchRules, toolPairingRules } from './shared-rules.js';

/**
 * DeepSeek chat (OpenAI-shaped): OpenAI's content rules; in thinking mode a tool-calling turn
 * keeps its `reasoning_content` (the governor never removes it; the provider decides per model
 * whether earlier reasoning is sent).
 */
export const DEEPSEEK_BEHAVIOUR: TargetBehaviour = Object.freeze({
  target: 'deepseek',
  ...OPENAI_CHAT_SHAPE,
  reasoningContentOnToolCalls: true,
  keepsArtifactsOf: [],
  earlierReasoningRemovedFor: /(^|\/)deepseek-reasoner$/,
} as const);

/** The rules `TARGET_PROFILES.deepseek` declares, in order (the steps read DEEPSEEK_BEHAVIOUR only). */
export function deepseekRules(): TargetRule[] {
  return [
    ...toolPairingRules(),
    ...chatContentRules(),
    { id: 'missing-reasoning-content', reasons: ['reasoning-content-added'] },
    ...modelSwitchRules([]),
    { id: 'earlier-reasoning', reasons: ['earlier-reasoning-removed'] },
  ];
}
