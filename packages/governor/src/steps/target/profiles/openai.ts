import type { TargetProfile } from '../target-profile.js';

const SOURCE = 'https://platform.openai.com/docs/api-reference/chat/create';

/** OpenAI Chat Completions: content present, a user turn first; roles otherwise free. */
export const OPENAI_PROFILE: TargetProfile = Object.freeze({
  target: 'openai',
  rules: Object.freeze([
    { id: 'unanswered-tool-call', requires: 'every tool call is answered by a tool message right after its assistant turn', source: SOURCE },
    { id: 'orphan-tool-result', requires: "a tool message responds to a preceding message with 'tool_calls'", source: SOURCE },
    { id: 'empty-content', requires: 'content is present, except on an assistant message with tool_calls', source: SOURCE },
    { id: 'first-not-user', requires: 'a user message first after the instructions', source: SOURCE },
  ]),
  strictContent: false,
  toolCallIdPattern: null,
  roleOrder: 'user-first',
} as const);
