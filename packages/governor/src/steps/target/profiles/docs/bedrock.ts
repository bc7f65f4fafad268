import { modelSwitchDocs, strictDocs, toolPairingDocs, type RuleDocs } from './shared-docs.js';

const CONVERSE_GUIDE = 'https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html';
const REASONING = 'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ReasoningTextBlock.html';

/** Amazon Bedrock Converse's rules, as AWS states them. */
export const BEDROCK_RULE_DOCS: RuleDocs = Object.freeze({
  ...toolPairingDocs('https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html'),
  ...strictDocs(CONVERSE_GUIDE, {
    blank: '"The text field in the ContentBlock object at messages.N.content.M is blank"',
    alternate: '"A conversation must alternate between user and assistant roles"; "You start a conversation by sending a message as a user"',
    last: '"the last message must be a user message, when using the Bedrock service"',
    empty: '"The content field in the Message object at messages.N is empty"',
  }),
  'invalid-tool-call-id': { requires: 'toolUseId matches ^[a-zA-Z0-9_-]+$', source: 'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolUseBlock.html', does: 'renames other ids, call and results alike' },
  'unsigned-reasoning-turn': { requires: '"You must submit the signature in subsequent Converse requests" (unsigned reasoning is not sent back)', source: REASONING, does: 'drops an assistant turn that holds only unsigned reasoning; signed reasoning is kept byte-exact' },
  ...modelSwitchDocs(['bedrock']),
});
