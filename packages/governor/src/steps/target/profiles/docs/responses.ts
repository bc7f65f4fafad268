import { chatContentDocs, modelSwitchDocs, toolPairingDocs, type RuleDocs } from './shared-docs.js';

/** The OpenAI Responses API's rules, as OpenAI states them. */
export const RESPONSES_RULE_DOCS: RuleDocs = Object.freeze({
  ...toolPairingDocs('https://platform.openai.com/docs/guides/function-calling'),
  ...chatContentDocs('https://platform.openai.com/docs/api-reference/responses/create'),
  'reasoning-with-its-item': {
    requires: 'a reasoning item is sent back with the item that followed it ("Item of type \'reasoning\' was provided without its required following item")',
    source: 'https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context',
    does: 'keeps reasoning on the turn it belongs to; a turn is dropped or kept whole',
  },
  ...modelSwitchDocs(['responses']),
  'reasoning-summary-missing': {
    requires: 'a reasoning input item carries `summary` (an empty list when there is none: "Missing required parameter: \'input[N].summary\'")',
    source: 'https://platform.openai.com/docs/api-reference/responses/create#responses-create-input',
    does: 'gives a Responses reasoning item without `summary` an empty one (`summary: []`); everything else in the item stays byte-exact',
  },
  'server-compaction-anchor': {
    requires: 'a compaction item (server-side compaction or `/responses/compact`) carries the earlier context: "you can drop items that came before the most recent compaction item ... The latest compaction item carries the necessary context to continue the conversation"; it is opaque ("not intended to be human-interpretable") and goes back as returned',
    source: 'https://developers.openai.com/api/docs/guides/compaction',
    does: 'a compaction item is a message of its own in the model (counted, `encrypted_content` included); over budget, a cut keeps nothing before the newest one (it starts at the item) or keeps it in front of a later start; the item goes back as the same object, and items of unknown types still travel unchanged with the next message; the report says so (`cut.serverCompaction`)',
  },
});
