import type { TargetProfile } from '../target-profile.js';
import { PLAIN_ROLES, modelSwitchRules, ruleList, strictRules, toolPairingRules } from './shared-rules.js';

const SOURCE = 'https://docs.anthropic.com/en/api/messages';

/** The tool-use id pattern of Anthropic's Messages API (Bedrock's toolUseId too). */
export const ANTHROPIC_TOOL_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

/** Anthropic Messages: instructions only as the system prompt, strict alternation, no blank text. */
export const ANTHROPIC_PROFILE: TargetProfile = Object.freeze({
  target: 'anthropic',
  rules: ruleList([
    ...toolPairingRules(SOURCE),
    ...strictRules(SOURCE, {
      blank: '"text content blocks must contain non-whitespace text"',
      alternate: 'user and assistant turns alternate, starting with a user turn',
      last: 'the last turn is a user turn (newer models refuse an assistant prefill)',
      empty: '"all messages must have non-empty content" (except an optional final assistant message)',
    }),
    { id: 'invalid-tool-call-id', requires: 'tool_use ids match ^[a-zA-Z0-9_-]+$', source: SOURCE, does: 'renames other ids (each other character becomes `_`, kept unique), call and results alike', reasons: ['tool-call-id-sanitized'] },
    {
      id: 'unsigned-reasoning-turn',
      requires: 'thinking sent back carries its signature; an assistant turn needs content ("all messages must have non-empty content")',
      source: 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks',
      does: 'drops an assistant turn that holds only unsigned reasoning (an aborted turn), which the AI SDK would send as `content: []`',
      reasons: ['unsigned-reasoning-only'],
    },
    ...modelSwitchRules(['anthropic']),
  ]),
  roles: PLAIN_ROLES,
  contentRequired: false,
  strictContent: true,
  toolCallIdPattern: ANTHROPIC_TOOL_ID_PATTERN,
  toolCallIdRename: 'sanitize',
  roleOrder: 'strict',
  assistantBetweenToolAndUser: false,
  dropUnsignedReasoningTurns: true,
  keepsArtifactsOf: ['anthropic'],
} as const);
