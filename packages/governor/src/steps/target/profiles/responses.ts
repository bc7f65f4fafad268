import type { TargetProfile } from '../target-profile.js';
import { OPENAI_CHAT_SHAPE, chatContentRules, modelSwitchRules, ruleList, toolPairingRules } from './shared-rules.js';

const FUNCTION_CALLING = 'https://platform.openai.com/docs/guides/function-calling';

/**
 * The OpenAI Responses API: every `function_call_output` has its `function_call`, content
 * present, a user turn first; reasoning items stay with the item that followed them (the
 * governor keeps an assistant turn's parts together and never reorders them).
 */
export const RESPONSES_PROFILE: TargetProfile = Object.freeze({
  target: 'responses',
  rules: ruleList([
    ...toolPairingRules(FUNCTION_CALLING),
    ...chatContentRules('https://platform.openai.com/docs/api-reference/responses/create'),
    {
      id: 'reasoning-with-its-item',
      requires: 'a reasoning item is sent back with the item that followed it ("Item of type \'reasoning\' was provided without its required following item")',
      source: 'https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context',
      does: 'keeps reasoning on the turn it belongs to; a turn is dropped or kept whole',
    },
    ...modelSwitchRules(['responses']),
    {
      id: 'reasoning-summary-missing',
      requires: 'a reasoning input item carries `summary` (an empty list when there is none: "Missing required parameter: \'input[N].summary\'")',
      source: 'https://platform.openai.com/docs/api-reference/responses/create#responses-create-input',
      does: 'gives a Responses reasoning item without `summary` an empty one (`summary: []`); everything else in the item stays byte-exact',
      reasons: ['reasoning-summary-added'],
    },
  ]),
  ...OPENAI_CHAT_SHAPE,
  keepsArtifactsOf: ['responses'],
  reasoningSummaryRequired: true,
} as const);
