import type { TargetBehaviour, TargetRule } from '../target-profile.js';
import { OPENAI_CHAT_SHAPE, chatContentRules, modelSwitchRules, toolPairingRules } from './shared-rules.js';

/** OpenAI Chat Completions: content present, a user turn first; roles otherwise free. */
export const OPENAI_BEHAVIOUR: TargetBehaviour = Object.freeze({
  target: 'openai',
  ...OPENAI_CHAT_SHAPE,
  keepsArtifactsOf: [],
} as const);

/** The rules `TARGET_PROFILES.openai` declares, in order (the steps read OPENAI_BEHAVIOUR only). */
export function openaiRules(): TargetRule[] {
  return [...toolPairingRules(), ...chatContentRules(), ...modelSwitchRules([])];
}
