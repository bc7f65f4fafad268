// The declared targets: one profile per provider family (one file each), looked up by name.
import type { GovernTarget } from '../govern-target.js';
import type { TargetProfile } from '../target-profile.js';
import { ANTHROPIC_PROFILE } from './anthropic.js';
import { ANY_PROFILE } from './any.js';
import { BEDROCK_PROFILE } from './bedrock.js';
import { DEEPSEEK_PROFILE } from './deepseek.js';
import { GEMINI_PROFILE } from './gemini.js';
import { MISTRAL_PROFILE } from './mistral.js';
import { OPENAI_PROFILE } from './openai.js';
import { OPENROUTER_PROFILE } from './openrouter.js';
import { RESPONSES_PROFILE } from './responses.js';

/** Every target's profile. */
export const TARGET_PROFILES: Readonly<Record<GovernTarget, TargetProfile>> = Object.freeze({
  openai: OPENAI_PROFILE,
  responses: RESPONSES_PROFILE,
  anthropic: ANTHROPIC_PROFILE,
  gemini: GEMINI_PROFILE,
  bedrock: BEDROCK_PROFILE,
  mistral: MISTRAL_PROFILE,
  deepseek: DEEPSEEK_PROFILE,
  openrouter: OPENROUTER_PROFILE,
  any: ANY_PROFILE,
});

export { ANTHROPIC_TOOL_ID_PATTERN } from './anthropic.js';
export { MISTRAL_TOOL_ID_PATTERN } from './mistral.js';
