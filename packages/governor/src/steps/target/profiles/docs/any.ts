import { ARTIFACT_FAMILIES } from '../../artifact-family.js';
import { TARGET_PROFILES } from '../index.js';
import { ANTHROPIC_RULE_DOCS } from './anthropic.js';
import { OPENAI_RULE_DOCS } from './openai.js';
import { modelSwitchDocs, type RuleDocs } from './shared-docs.js';

const BOTH: RuleDocs = Object.freeze({ ...ANTHROPIC_RULE_DOCS, ...OPENAI_RULE_DOCS, ...modelSwitchDocs(ARTIFACT_FAMILIES) });

/** The default target's rules: OpenAI's wording where both APIs state a rule, else Anthropic's. */
export const ANY_RULE_DOCS: RuleDocs = Object.freeze(Object.fromEntries(TARGET_PROFILES.any.rules.map((r) => [r.id, BOTH[r.id]!])));
