import { modelSwitchDocs, strictDocs, toolPairingDocs, type RuleDocs } from './shared-docs.js';

const SOURCE = 'https://docs.anthropic.com/en/api/messages';

/** Anthropic Messages' rules, as Anthropic states them. */
export const ANTHROPIC_RULE_DOCS: RuleDocs = Object.freeze({
  ...toolPairingDocs(SOURCE),
  ...strictDocs(SOURCE, {
    blank: '"text content blocks must contain non-whitespace text"',
    alternate: 'user and assistant turns alternate, starting with a user turn',
    last: 'the last turn is a user turn (newer models refuse an assistant prefill)',
    empty: '"all messages must have non-empty content" (except an optional final assistant message)',
  }),
  'invalid-tool-call-id': { requires: 'tool_use ids match ^[a-zA-Z0-9_-]+$', source: SOURCE, does: 'renames other ids (each other character becomes `_`, kept unique), call and results alike' },
  'unsigned-reasoning-turn': {
    requires: 'thinking sent back carries its signature; an assistant turn needs content ("all messages must have non-empty content")',
    source: 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks',
    does: 'drops an assistant turn that holds only unsigned reasoning (an aborted turn), which the AI SDK would send as `content: []`',
  },
  ...modelSwitchDocs(['anthropic']),
});
