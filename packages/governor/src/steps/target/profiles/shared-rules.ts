// Rules several OpenAI-shaped chat APIs state alike (each profile lists the ones it enforces,
// with its own source where the provider states them itself).
import type { TargetProfile, TargetRule } from '../target-profile.js';
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
export const OPENAI_CHAT_SHAPE: Omit<TargetProfile, 'target' | 'rules'> = Object.freeze({
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
export function toolPairingRules(source: string): TargetRule[] {
  return [
    { id: 'unanswered-tool-call', requires: 'every tool call is answered by a tool message right after its assistant turn', source, does: 'backfills a result for an unanswered call; regroups results that drifted', reasons: [] },
    { id: 'orphan-tool-result', requires: "a tool message responds to a preceding message with 'tool_calls'", source, does: 'drops a result without its call' },
  ];
}

/** No message without content. */
export function nonEmptyRule(source: string, requires: string): TargetRule {
  return { id: 'empty-content', requires, source, does: 'drops an empty assistant turn or instruction, gives an empty user or tool message a placeholder', reasons: ['empty-assistant', 'empty-user', 'empty-tool-result', 'empty-content-list', 'empty-instruction'] };
}

/** A user turn first after the instructions. */
export function firstUserRule(source: string, requires = 'a user message first after the instructions'): TargetRule {
  return { id: 'first-not-user', requires, source, does: 'puts a `(conversation continued)` user turn before a leading assistant or tool message', reasons: ['conversation-continued'] };
}

/** Content present, a user turn first (OpenAI Chat Completions and the APIs shaped like it). */
export function chatContentRules(source: string): TargetRule[] {
  return [nonEmptyRule(source, 'content is present, except on an assistant message with tool_calls'), firstUserRule(source)];
}

/** Anthropic-style strict content and order (Anthropic, Bedrock, Gemini, Mistral's validator). */
export function strictRules(source: string, wording: { blank: string; alternate: string; last: string; empty: string }): TargetRule[] {
  return [
    nonEmptyRule(source, wording.empty),
    firstUserRule(source, 'the conversation starts with a user turn'),
    { id: 'blank-text', requires: wording.blank, source, does: 'removes blank text parts; blank text next to tool calls becomes null', reasons: ['blank-text-removed'] },
    { id: 'instruction-after-start', requires: 'instructions only at the head (the system prompt)', source, does: 'turns a later system/developer message into a `[System message]` user note in its place; `developer` becomes `system`', reasons: ['instruction-as-user-note', 'developer-as-system'] },
    { id: 'consecutive-same-role', requires: wording.alternate, source, does: 'merges same-role neighbours without losing content', reasons: ['merged-same-role'] },
    { id: 'ends-with-assistant', requires: wording.last, source, does: 'drops trailing assistant turns (an assistant turn last would be a prefill)', reasons: ['trailing-assistant'] },
  ];
}

/** A profile's rule list, frozen (typed, so each rule's `reasons` are checked). */
export function ruleList(list: TargetRule[]): readonly TargetRule[] {
  return Object.freeze(list);
}

const FAMILY_NAMES: Readonly<Record<ArtifactFamily, string>> = {
  anthropic: 'Anthropic thinking / redacted_thinking blocks and server tool blocks',
  bedrock: "Bedrock's signed reasoning",
  gemini: 'Gemini thought signatures',
  responses: 'Responses encrypted reasoning items',
  openrouter: 'OpenRouter reasoning_details',
};

/**
 * The model-switch rules of a target (issue 25 item 3): what it takes back byte-exact (`keeps`,
 * its own family's artifacts) and what happens to every other family's.
 */
export function modelSwitchRules(keeps: readonly ArtifactFamily[]): TargetRule[] {
  const kept = keeps.length === 0 ? 'nothing signed by a provider' : keeps.map((f) => FAMILY_NAMES[f]).join('; ');
  return [
    {
      id: 'foreign-artifact',
      requires: 'signed reasoning goes back only to the API that signed it, unmodified (Anthropic: "thinking blocks ... must be passed back ... unmodified"; Google: thought signatures "never ... invented ... or moved"; OpenRouter: "reasoning_details ... unmodified"; OpenAI: encrypted reasoning items only to the Responses API); other APIs reject or cannot verify it',
      source: 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks',
      does: `keeps ${kept} byte-exact on the turn they came with; removes another family's signed reasoning (thinking_blocks entries, signed thinking parts, reasoning_details, thought signatures on calls); AI SDK reasoning parts stay with their namespaced providerOptions, which each @ai-sdk provider reads for itself only`,
      reasons: ['foreign-reasoning-removed'],
    },
    {
      id: 'foreign-server-tool-block',
      requires: keeps.includes('anthropic')
        ? 'provider-executed tool blocks (server_tool_use, web_search_tool_result, …) come back as they were returned'
        : 'only the API that ran a provider-executed tool reads its blocks back ("Invalid value: \'server_tool_use\'. Supported values are: \'text\' and \'refusal\'")',
      source: 'https://docs.claude.com/en/docs/agents-and-tools/tool-use/web-search-tool',
      does: keeps.includes('anthropic')
        ? 'keeps Anthropic server tool blocks byte-exact and in place'
        : "turns another provider's server tool blocks into text parts in their place (`[web_search (run by the provider) called with …]`, the results' titles and URLs; encrypted content left out)",
      reasons: keeps.includes('anthropic') ? [] : ['server-tool-as-text'],
    },
  ];
}
