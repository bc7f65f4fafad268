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
  'server-compaction-anchor': {
    requires: 'server-side compaction (threshold and on-demand): "Messages before the compaction block are dropped on next request", and the block comes back as it was returned (its `encrypted_content` is "opaque metadata from prior compaction, to be round-tripped verbatim")',
    source: 'https://platform.claude.com/docs/en/build-with-claude/compaction-threshold',
    does: 'treats the newest `compaction` block as an anchor: over budget, a cut keeps nothing before it (it starts at the block\'s turn, a `(conversation continued)` user turn in front) or keeps that turn, byte-exact with its tool results, in front of a later start; no step shortens or rewrites the block; the report says so (`cut.serverCompaction`: `cut-at-anchor` / `anchor-kept`)',
  },
});
