// The targets' rule documentation: what each provider says (quoted or paraphrased), where, and
// what the governor does, by target and rule id. Apart from the profiles the steps read, so that
// a program running `govern` does not carry the wording: the README's table, reports and the
// playground import it.
import type { GovernTarget } from '../../govern-target.js';
import type { DocumentedTargetRule, TargetRuleDoc } from '../../target-profile.js';
import { TARGET_PROFILES } from '../index.js';
import { ANTHROPIC_RULE_DOCS } from './anthropic.js';
import { ANY_RULE_DOCS } from './any.js';
import { BEDROCK_RULE_DOCS } from './bedrock.js';
import { DEEPSEEK_RULE_DOCS } from './deepseek.js';
import { GEMINI_RULE_DOCS } from './gemini.js';
import { MISTRAL_RULE_DOCS } from './mistral.js';
import { OPENAI_RULE_DOCS } from './openai.js';
import { OPENROUTER_RULE_DOCS } from './openrouter.js';
import { RESPONSES_RULE_DOCS } from './responses.js';

/** Every target's rule documentation, by rule id (the ids of `TARGET_PROFILES[target].rules`). */
export const TARGET_RULE_DOCS: Readonly<Record<GovernTarget, Readonly<Record<string, TargetRuleDoc>>>> = Object.freeze({
  openai: OPENAI_RULE_DOCS,
  responses: RESPONSES_RULE_DOCS,
  anthropic: ANTHROPIC_RULE_DOCS,
  gemini: GEMINI_RULE_DOCS,
  bedrock: BEDROCK_RULE_DOCS,
  mistral: MISTRAL_RULE_DOCS,
  deepseek: DEEPSEEK_RULE_DOCS,
  openrouter: OPENROUTER_RULE_DOCS,
  any: ANY_RULE_DOCS,
});

/**
 * The rules of `target`'s profile in their declared order, each with what the provider says,
 * its source and what the governor does. Throws a `TypeError` for a target that is not one of
 * `GOVERN_TARGETS` (a programmer error).
 */
export function documentedRules(target: GovernTarget): DocumentedTargetRule[] {
  const profile = TARGET_PROFILES[target];
  const docs = TARGET_RULE_DOCS[target];
  if (profile === undefined || docs === undefined) throw new TypeError(`unknown target ${JSON.stringify(target)}`);
  return profile.rules.map((rule) => {
    const doc = docs[rule.id];
    if (doc === undefined) throw new TypeError(`${target}: rule ${rule.id} has no documentation`);
    return { id: rule.id, requires: doc.requires, source: doc.source, does: doc.does, ...(rule.reasons === undefined ? {} : { reasons: rule.reasons }) };
  });
}

/** The documentation of `target`'s rule `id` (undefined when the target has no such rule). */
export function ruleDoc(target: GovernTarget, id: string): TargetRuleDoc | undefined {
  return TARGET_PROFILES[target]?.rules.some((r) => r.id === id) ? TARGET_RULE_DOCS[target][id] : undefined;
}
