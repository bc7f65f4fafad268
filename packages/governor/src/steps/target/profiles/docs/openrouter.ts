import { chatContentDocs, modelSwitchDocs, toolPairingDocs, type RuleDocs } from './shared-docs.js';

const SOURCE = 'https://openrouter.ai/docs/api-reference/chat-completion';

/** OpenRouter's rules, as OpenRouter states them. */
export const OPENROUTER_RULE_DOCS: RuleDocs = Object.freeze({
  ...toolPairingDocs(SOURCE),
  ...chatContentDocs(SOURCE),
  'reasoning-details-unmodified': {
    requires: '"the reasoning_details ... must be passed back unmodified"',
    source: 'https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks',
    does: 'keeps `reasoning_details` byte-exact on the turn they came with',
  },
  ...modelSwitchDocs(['openrouter']),
  'current-turn-reasoning': {
    requires: 'Gemini 3 behind OpenRouter: each current-turn step\'s first call comes back with its `reasoning.encrypted` detail ("Function call is missing a thought_signature"); Claude with reasoning on: "a final `assistant` message must start with a thinking block" (one thinking configuration per assistant turn: a tool loop is one turn)',
    source: 'https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks',
    does: 'with the `model` option naming such a model (`google/gemini-3…`, `anthropic/claude…:thinking`), a current-turn step made by another model (none of its reasoning to send back) is sent as plain text: its calls as an assistant note, its results as a user note, so the turn that follows starts afresh; signed steps are left alone',
  },
});
