import type { TargetProfile } from '../target-profile.js';
import { PLAIN_ROLES, modelSwitchRules, ruleList, strictRules, toolPairingRules } from './shared-rules.js';

const VALIDATOR = 'https://github.com/mistralai/mistral-common/blob/main/src/mistral_common/protocol/instruct/validator.py';

/** Mistral's tool-call ids: exactly 9 characters of a-z, A-Z, 0-9. */
export const MISTRAL_TOOL_ID_PATTERN = /^[a-zA-Z0-9]{9}$/;

/**
 * Mistral chat (mistral-common's validator): 9-alphanumeric tool-call ids, a fixed table of
 * which role may follow which (never `user` right after `tool`), the last message from the user
 * or a tool.
 */
export const MISTRAL_PROFILE: TargetProfile = Object.freeze({
  target: 'mistral',
  rules: ruleList([
    ...toolPairingRules(VALIDATOR),
    ...strictRules(VALIDATOR, {
      blank: 'content present and not blank',
      alternate: 'a role may only follow certain roles (same-role turns merged so the order stays legal)',
      last: '"Expected last role User or Tool (or Assistant with prefix True) for serving"',
      empty: 'content present (an assistant message without tool calls needs content)',
    }),
    {
      id: 'user-after-tool',
      requires: '"Unexpected role \'user\' after role \'tool\'"',
      source: 'https://github.com/BerriAI/litellm/issues/17761',
      does: 'puts a marked assistant turn `(tool results received)` between the results and the user message',
      reasons: ['assistant-after-tool-results'],
    },
    {
      id: 'invalid-tool-call-id',
      requires: '"Tool call id was … but must be a-z, A-Z, 0-9, with a length of 9."',
      source: 'https://github.com/anomalyco/opencode/issues/1680',
      does: 'maps every other id to 9 alphanumerics derived from it (the same id gives the same short id on every request, so the prompt cache holds; collisions resolved in order of appearance), call and results alike',
      reasons: ['tool-call-id-mapped'],
    },
    ...modelSwitchRules([]),
  ]),
  roles: PLAIN_ROLES,
  contentRequired: true,
  strictContent: true,
  toolCallIdPattern: MISTRAL_TOOL_ID_PATTERN,
  toolCallIdRename: 'short-id',
  roleOrder: 'strict',
  assistantBetweenToolAndUser: true,
  dropUnsignedReasoningTurns: false,
  keepsArtifactsOf: [],
} as const);
