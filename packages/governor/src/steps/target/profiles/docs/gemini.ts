import { modelSwitchDocs, strictDocs, toolPairingDocs, type RuleDocs } from './shared-docs.js';

const FUNCTION_CALLING = 'https://ai.google.dev/gemini-api/docs/function-calling';
const SIGNATURES = 'https://ai.google.dev/gemini-api/docs/thought-signatures';

/** Gemini generateContent's rules, as Google states them. */
export const GEMINI_RULE_DOCS: RuleDocs = Object.freeze({
  ...toolPairingDocs(FUNCTION_CALLING),
  ...strictDocs('https://ai.google.dev/api/caching#Content', {
    blank: 'no part with empty text; every content has at least one part',
    alternate: '"Please ensure that multiturn requests alternate between user and model."',
    last: 'the request ends with a user turn or a function-response turn',
    empty: '"contents.parts must not be empty"',
  }),
  'user-after-tool': {
    requires: 'a function-response turn is a user content: a user message right after it would be two user contents in a row ("multiturn requests alternate between user and model")',
    source: 'https://github.com/google-gemini/gemini-cli/issues/11814',
    does: 'puts a marked model turn `(tool results received)` between the results and the user message',
  },
  'invalid-tool-call-id': { requires: 'call ids the providers accept (^[a-zA-Z0-9_-]+$)', source: FUNCTION_CALLING, does: 'renames other ids, call and results alike' },
  'thought-signature': { requires: '"a thought signature comes back on the part it came with", never invented, never moved', source: SIGNATURES, does: 'leaves signatures (`extra_content.google.thought_signature`, AI SDK provider options) on their call, byte-exact; never copies one onto another part' },
  'current-turn-signature': {
    requires: 'Gemini 3: the first function call of each step in the current turn carries its thought signature ("Function call is missing a thought_signature"); where none exists (a history from another model) the documented placeholder',
    source: SIGNATURES,
    does: 'gives such a call without a signature the placeholder `skip_thought_signature_validator` (OpenAI-compatible form; `@ai-sdk/google` does it itself)',
  },
  ...modelSwitchDocs(['gemini']),
});
