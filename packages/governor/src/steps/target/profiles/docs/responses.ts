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
});
