// The wording of the rules several APIs state alike (profiles/shared-rules.ts declares them for
// the steps), with each provider's own source and words passed in.
import type { TargetRuleDoc } from '../../target-profile.js';
import type { ArtifactFamily } from '../../artifact-family.js';

/** A target's rule documentation by rule id. */
export type RuleDocs = Readonly<Record<string, TargetRuleDoc>>;

/** Every call answered right after its turn, no result without its call (the repair steps). */
export function toolPairingDocs(source: string): RuleDocs {
  return {
    'unanswered-tool-call': { requires: 'every tool call is answered by a tool message right after its assistant turn', source, does: 'backfills a result for an unanswered call; regroups results that drifted' },
    'orphan-tool-result': { requires: "a tool message responds to a preceding message with 'tool_calls'", source, does: 'drops a result without its call' },
  };
}

/** No message without content. */
function nonEmptyDoc(source: string, requires: string): TargetRuleDoc {
  return { requires, source, does: 'drops an empty assistant turn or instruction, gives an empty user or tool message a placeholder' };
}

/** A user turn first after the instructions. */
function firstUserDoc(source: string, requires = 'a user message first after the instructions'): TargetRuleDoc {
  return { requires, source, does: 'puts a `(conversation continued)` user turn before a leading assistant or tool message' };
}

/** Content present, a user turn first (OpenAI Chat Completions and the APIs shaped like it). */
export function chatContentDocs(source: string): RuleDocs {
  return { 'empty-content': nonEmptyDoc(source, 'content is present, except on an assistant message with tool_calls'), 'first-not-user': firstUserDoc(source) };
}

/** Anthropic-style strict content and order (Anthropic, Bedrock, Gemini, Mistral's validator). */
export function strictDocs(source: string, wording: { blank: string; alternate: string; last: string; empty: string }): RuleDocs {
  return {
    'empty-content': nonEmptyDoc(source, wording.empty),
    'first-not-user': firstUserDoc(source, 'the conversation starts with a user turn'),
    'blank-text': { requires: wording.blank, source, does: 'removes blank text parts; blank text next to tool calls becomes null' },
    'instruction-after-start': { requires: 'instructions only at the head (the system prompt)', source, does: 'turns a later system/developer message into a `[System message]` user note in its place; `developer` becomes `system`' },
    'consecutive-same-role': { requires: wording.alternate, source, does: 'merges same-role neighbours without losing content' },
    'ends-with-assistant': { requires: wording.last, source, does: 'drops trailing assistant turns (an assistant turn last would be a prefill)' },
  };
}

const FAMILY_NAMES: Readonly<Record<ArtifactFamily, string>> = {
  anthropic: 'Anthropic thinking / redacted_thinking blocks and server tool blocks',
  bedrock: "Bedrock's signed reasoning",
  gemini: 'Gemini thought signatures',
  responses: 'Responses encrypted reasoning items',
  openrouter: 'OpenRouter reasoning_details',
};

/** The model-switch rules of a target that takes back `keeps` (its own family's artifacts) byte-exact. */
export function modelSwitchDocs(keeps: readonly ArtifactFamily[]): RuleDocs {
  const kept = keeps.length === 0 ? 'nothing signed by a provider' : keeps.map((f) => FAMILY_NAMES[f]).join('; ');
  return {
    'foreign-artifact': {
      requires: 'signed reasoning goes back only to the API that signed it, unmodified (Anthropic: "thinking blocks ... must be passed back ... unmodified"; Google: thought signatures "never ... invented ... or moved"; OpenRouter: "reasoning_details ... unmodified"; OpenAI: encrypted reasoning items only to the Responses API); other APIs reject or cannot verify it',
      source: 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks',
      does: `keeps ${kept} byte-exact on the turn they came with; removes another family's signed reasoning (thinking_blocks entries, signed thinking parts, reasoning_details, thought signatures on calls); AI SDK reasoning parts stay with their namespaced providerOptions, which each @ai-sdk provider reads for itself only`,
    },
    'foreign-server-tool-block': {
      requires: keeps.includes('anthropic')
        ? 'provider-executed tool blocks (server_tool_use, web_search_tool_result, …) come back as they were returned'
        : 'only the API that ran a provider-executed tool reads its blocks back ("Invalid value: \'server_tool_use\'. Supported values are: \'text\' and \'refusal\'")',
      source: 'https://docs.claude.com/en/docs/agents-and-tools/tool-use/web-search-tool',
      does: keeps.includes('anthropic')
        ? 'keeps Anthropic server tool blocks byte-exact and in place'
        : "turns another provider's server tool blocks into text parts in their place (`[web_search (run by the provider) called with …]`, the results' titles and URLs; encrypted content left out)",
    },
  };
}
