import type { TargetProfile } from '../target-profile.js';
import { PLAIN_ROLES, modelSwitchRules, ruleList, strictRules, toolPairingRules } from './shared-rules.js';
import { ANTHROPIC_TOOL_ID_PATTERN } from './anthropic.js';

const CONVERSE_GUIDE = 'https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html';
const REASONING = 'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ReasoningTextBlock.html';

/** Amazon Bedrock Converse: a user message first and last, strict alternation, no blank text. */
export const BEDROCK_PROFILE: TargetProfile = Object.freeze({
  target: 'bedrock',
  rules: ruleList([
    ...toolPairingRules('https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html'),
    ...strictRules(CONVERSE_GUIDE, {
      blank: '"The text field in the ContentBlock object at messages.N.content.M is blank"',
      alternate: '"A conversation must alternate between user and assistant roles"; "You start a conversation by sending a message as a user"',
      last: '"the last message must be a user message, when using the Bedrock service"',
      empty: '"The content field in the Message object at messages.N is empty"',
    }),
    { id: 'invalid-tool-call-id', requires: 'toolUseId matches ^[a-zA-Z0-9_-]+$', source: 'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolUseBlock.html', does: 'renames other ids, call and results alike', reasons: ['tool-call-id-sanitized'] },
    { id: 'unsigned-reasoning-turn', requires: '"You must submit the signature in subsequent Converse requests" (unsigned reasoning is not sent back)', source: REASONING, does: 'drops an assistant turn that holds only unsigned reasoning; signed reasoning is kept byte-exact', reasons: ['unsigned-reasoning-only'] },
    ...modelSwitchRules(['bedrock']),
  ]),
  roles: PLAIN_ROLES,
  contentRequired: false,
  strictContent: true,
  toolCallIdPattern: ANTHROPIC_TOOL_ID_PATTERN,
  toolCallIdRename: 'sanitize',
  roleOrder: 'strict',
  assistantBetweenToolAndUser: false,
  dropUnsignedReasoningTurns: true,
  keepsArtifactsOf: ['bedrock'],
} as const);
