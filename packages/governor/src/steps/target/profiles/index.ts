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

/** Every target's profile, in GOVERN_TARGETS order ('any' reuses OpenAI's and Anthropic's rule objects). */
function profiles(): Record<GovernTarget, TargetProfile> {
  const openai = profile(B.openai, openaiRules());
  const anthropic = profile(B.anthropic, anthropicRules());
  return {
    openai,
    responses: profile(B.responses, responsesRules()),
    anthropic,
    gemini: profile(B.gemini, geminiRules()),
    bedrock: profile(B.bedrock, bedrockRules()),
    mistral: profile(B.mistral, mistralRules()),
    deepseek: profile(B.deepseek, deepseekRules()),
    openrouter: profile(B.openrouter, openrouterRules()),
    any: profile(B.any, anyRules(openai.rules, anthropic.rules)),
  };
}

/** Every target's profile (`TARGET_BEHAVIOURS[target]`'s fields, with the rules it declares). */
export const TARGET_PROFILES: Readonly<Record<GovernTarget, TargetProfile>> = Object.freeze(profiles());

export { ANTHROPIC_TOOL_ID_PATTERN } from './anthropic.js';
export { MISTRAL_TOOL_ID_PATTERN } from './mistral.js';
