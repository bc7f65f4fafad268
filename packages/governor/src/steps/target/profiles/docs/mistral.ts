import { modelSwitchDocs, strictDocs, toolPairingDocs, type RuleDocs } from './shared-docs.js';

const VALIDATOR = 'https://github.com/mistralai/mistral-common/blob/main/src/mistral_common/protocol/instruct/validator.py';

/** Mistral chat's rules, as mistral-common's validator and its errors state them. */
export const MISTRAL_RULE_DOCS: RuleDocs = Object.freeze({
  ...toolPairingDocs(VALIDATOR),
  ...strictDocs(VALIDATOR, {
    blank: 'content present and not blank',
    alternate: 'a role may only follow certain roles (same-role turns merged so the order stays legal)',
    last: '"Expected last role User or Tool (or Assistant with prefix True) for serving"',
    empty: 'content present (an assistant message without tool calls needs content)',
  }),
  'user-after-tool': {
    requires: '"Unexpected role \'user\' after role \'tool\'"',
    source: 'https://github.com/BerriAI/litellm/issues/17761',
    does: 'puts a marked assistant turn `(tool results received)` between the results and the user message',
  },
  'invalid-tool-call-id': {
    requires: '"Tool call id was … but must be a-z, A-Z, 0-9, with a length of 9."',
    source: 'https://github.com/anomalyco/opencode/issues/1680',
    does: 'maps every other id to the first 9 hex digits of its SHA-1, as the reference does (the same id gives the same short id on every request, so the prompt cache holds; collisions resolved in order of appearance), call and results alike',
  },
  ...modelSwitchDocs([]),
});
