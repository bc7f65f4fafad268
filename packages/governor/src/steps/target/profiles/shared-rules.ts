// Rules several OpenAI-shaped chat APIs state alike (each profile lists the ones it enforces;
// their wording, per provider, is in docs/shared-docs.ts).
import type { TargetBehaviour, TargetRule } from '../target-profile.js';
import type { ArtifactFamily } from '../artifact-family.js';

/** The roles OpenAI Chat Completions accepts. */
export const CHAT_ROLES: readonly string[] = Object.freeze(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
/** The roles of APIs without `developer` (instructions go in the system prompt). */
export const PLAIN_ROLES: readonly string[] = Object.freeze(['system', 'developer', 'user', 'assistant', 'tool']);

/**
 * How OpenAI Chat Completions takes a history (its roles, content required but not strict, ids
 * sanitised, a user first, nothing between tool results and a user message), which the
 * OpenAI-shaped targets share; a profile spreads it and lists its own rules.
 */
export const OPENAI_CHAT_SHAPE: Omit<TargetBehaviour, 'target'> = Object.freeze({
  roles: CHAT_ROLES,
  contentRequired: true,
  strictContent: false,
  toolCallIdPattern: null,
  toolCallIdRename: 'sanitize',
  roleOrder: 'user-first',
  assistantBetweenToolAndUser: false,
  dropUnsignedReasoningTurns: false,
  keepsArtifactsOf: Object.freeze([]),
});

/** Every call answered right after its turn, no result without its call (the repair steps). */
export function toolPairingRules(): TargetRule[] {
  return [{ id: 'unanswered-tool-call', reasons: [] }, { id: 'orphan-tool-result' }];
}

/** No message without content. */
export function nonEmptyRule(): TargetRule {
  return { id: 'empty-content', reasons: ['empty-assistant', 'empty-user', 'empty-tool-result', 'empty-content-list', 'empty-instruction'] };
}

/** A user turn first after the instructions. */
export function firstUserRule(): TargetRule {
  return { id: 'first-not-user', reasons: ['conversation-continued'] };
}

/** Content present, a user turn first (OpenAI Chat Completions and the APIs shaped like it). */
export function chatContentRules(): TargetRule[] {
  return [nonEmptyRule(), firstUserRule()];
}

/** Anthropic-style strict content and order (Anthropic, Bedrock, Gemini, Mistral's validator). */
export function strictRules(): TargetRule[] {
  return [
    nonEmptyRule(),
    firstUserRule(),
    { id: 'blank-text', reasons: ['blank-text-removed'] },
    { id: 'instruction-after-start', reasons: ['instruction-as-user-note', 'developer-as-system'] },
    { id: 'consecutive-same-role', reasons: ['merged-same-role'] },
    { id: 'ends-with-assistant', reasons: ['trailing-assistant'] },
  ];
}

/** A profile's rule list, frozen (typed, so each rule's `reasons` are checked). */
export function ruleList(list: TargetRule[]): readonly TargetRule[] {
  return Object.freeze(list);
}

/**
 * The model-switch rules of a target (issue 25 item 3): what it takes back byte-exact (`keeps`,
 * its own family's artifacts) and what happens to every other family's.
 */
export function modelSwitchRules(keeps: readonly ArtifactFamily[]): TargetRule[] {
  return [
    { id: 'foreign-artifact', reasons: ['foreign-reasoning-removed'] },
    { id: 'foreign-server-tool-block', reasons: keeps.includes('anthropic') ? [] : ['server-tool-as-text'] },
  ];
}
