import type { TargetProfile } from '../target-profile.js';
import { CHAT_ROLES, chatContentRules, ruleList, toolPairingRules } from './shared-rules.js';

const SOURCE = 'https://platform.openai.com/docs/api-reference/chat/create';

/** OpenAI Chat Completions: content present, a user turn first; roles otherwise free. */
export const OPENAI_PROFILE: TargetProfile = Object.freeze({
  target: 'openai',
  rules: ruleList([...toolPairingRules(SOURCE), ...chatContentRules(SOURCE)]),
  roles: CHAT_ROLES,
  contentRequired: true,
  strictContent: false,
  toolCallIdPattern: null,
  toolCallIdRename: 'sanitize',
  roleOrder: 'user-first',
  assistantBetweenToolAndUser: false,
  dropUnsignedReasoningTurns: false,
} as const);
