// The declared targets: one profile per provider family (one file each: its behaviour and its
// rules), looked up by name. The steps read the behaviours (behaviours.ts); the profiles add
// the rules, for checkLegality, the docs and reports.
import type { GovernTarget } from '../govern-target.js';
import type { TargetBehaviour, TargetProfile, TargetRule } from '../target-profile.js';
import { anthropicRules } from './anthropic.js';
import { anyRules } from './any.js';
import { TARGET_BEHAVIOURS as B } from './behaviours.js';
import { bedrockRules } from './bedrock.js';
import { deepseekRules } from './deepseek.js';
import { geminiRules } from './gemini.js';
import { mistralRules } from './mistral.js';
import { openaiRules } from './openai.js';
import { openrouterRules } from './openrouter.js';
import { responsesRules } from './responses.js';
import { ruleList } from './shared-rules.js';

/** A target's profile: its behaviour's fields after `target` and `rules` (frozen, like the list). */
function profile({ target, ...behaviour }: TargetBehaviour, rules: TargetRule[]): TargetProfile {
  return Object.freeze({ target, rules: ruleList(rules), ...behaviour });
}

const OPENAI_PROFILE = profile(B.openai, openaiRules());
const ANTHROPIC_PROFILE = profile(B.anthropic, anthropicRules());

/** Every target's profile (`TARGET_BEHAVIOURS[target]`'s fields, with the rules it declares). */
export const TARGET_PROFILES: Readonly<Record<GovernTarget, TargetProfile>> = Object.freeze({
  openai: OPENAI_PROFILE,
  responses: profile(B.responses, responsesRules()),
  anthropic: ANTHROPIC_PROFILE,
  gemini: profile(B.gemini, geminiRules()),
  bedrock: profile(B.bedrock, bedrockRules()),
  mistral: profile(B.mistral, mistralRules()),
  deepseek: profile(B.deepseek, deepseekRules()),
  openrouter: profile(B.openrouter, openrouterRules()),
  any: profile(B.any, anyRules(OPENAI_PROFILE.rules, ANTHROPIC_PROFILE.rules)),
});

export { ANTHROPIC_TOOL_ID_PATTERN } from './anthropic.js';
export { MISTRAL_TOOL_ID_PATTERN } from './mistral.js';
