import type { TargetProfile } from '../target-profile.js';

const SOURCE = 'https://docs.anthropic.com/en/api/messages';

/** The tool-use id pattern of Anthropic's Messages API. */
export const ANTHROPIC_TOOL_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

/** Anthropic Messages: instructions only as the system prompt, strict alternation, no blank text. */
export const ANTHROPIC_PROFILE: TargetProfile = Object.freeze({
  target: 'anthropic',
  rules: Object.freeze([
    { id: 'unanswered-tool-call', requires: 'each tool_use block is answered by a tool_result block in the next user turn', source: SOURCE },
    { id: 'blank-text', requires: 'text content blocks must contain non-whitespace text', source: SOURCE },
    { id: 'instruction-after-start', requires: 'instructions go in the top-level system parameter', source: SOURCE },
    { id: 'consecutive-same-role', requires: 'user and assistant turns alternate, starting with a user turn', source: SOURCE },
    { id: 'ends-with-assistant', requires: 'the last turn is a user turn (no assistant prefill)', source: SOURCE },
    { id: 'invalid-tool-call-id', requires: 'tool_use ids match ^[a-zA-Z0-9_-]+$', source: SOURCE },
  ]),
  strictContent: true,
  toolCallIdPattern: ANTHROPIC_TOOL_ID_PATTERN,
  roleOrder: 'strict',
} as const);
