// The declared targets' behaviours (their profiles without the rule lists), looked up by name:
// what the target steps read. Apart from TARGET_PROFILES (index.ts), which adds each target's
// rules, so that a program that only governs does not carry the rule lists.
import type { GovernTarget } from '../govern-target.js';
import type { TargetBehaviour } from '../target-profile.js';
import { ANTHROPIC_BEHAVIOUR } from './anthropic.js';
import { ANY_BEHAVIOUR } from './any.js';
import { BEDROCK_BEHAVIOUR } from './bedrock.js';
import { DEEPSEEK_BEHAVIOUR } from './deepseek.js';
import { GEMINI_BEHAVIOUR } from './gemini.js';
import { MISTRAL_BEHAVIOUR } from './mistral.js';
import { OPENAI_BEHAVIOUR } from './openai.js';
import { OPENROUTER_BEHAVIOUR } from './openrouter.js';
import { RESPONSES_BEHAVIOUR } from './responses.js';

/** Every target's behaviour (`TARGET_PROFILES[target]` without `rules`). */
export const TARGET_BEHAVIOURS: Readonly<Record<GovernTarget, TargetBehaviour>> = Object.freeze({
  openai: OPENAI_BEHAVIOUR,
  responses: RESPONSES_BEHAVIOUR,
  anthropic: ANTHROPIC_BEHAVIOUR,
  gemini: GEMINI_BEHAVIOUR,
  bedrock: BEDROCK_BEHAVIOUR,
  mistral: MISTRAL_BEHAVIOUR,
  deepseek: DEEPSEEK_BEHAVIOUR,
  openrouter: OPENROUTER_BEHAVIOUR,
  any: ANY_BEHAVIOUR,
});
