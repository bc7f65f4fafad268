import type { TargetProfile } from '../target-profile.js';
import { OPENAI_CHAT_SHAPE, chatContentRules, modelSwitchRules, ruleList, toolPairingRules } from './shared-rules.js';

/** OpenAI Chat Completions: content present, a user turn first; roles otherwise free. */
export const OPENAI_PROFILE: TargetProfile = Object.freeze({
  target: 'openai',
  rules: ruleList([...toolPairingRules(), ...chatContentRules(), ...modelSwitchRules([])]),
  ...OPENAI_CHAT_SHAPE,
  keepsArtifactsOf: [],
} as const);
