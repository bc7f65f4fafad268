import { chatContentDocs, modelSwitchDocs, toolPairingDocs, type RuleDocs } from './shared-docs.js';

const SOURCE = 'https://api-docs.deepseek.com/api/create-chat-completion';

/** DeepSeek chat's rules, as DeepSeek states them. */
export const DEEPSEEK_RULE_DOCS: RuleDocs = Object.freeze({
  ...toolPairingDocs(SOURCE),
  ...chatContentDocs(SOURCE),
  'missing-reasoning-content': {
    requires: '"the tool invocation process in thinking mode requires users to pass back reasoning_content to the API"',
    source: 'https://api-docs.deepseek.com/guides/thinking_mode#tool-calls',
    does: 'keeps `reasoning_content` on every tool-calling turn; a turn another model made (none to send back) gets an empty `reasoning_content`',
  },
  ...modelSwitchDocs([]),
  'earlier-reasoning': {
    requires: 'deepseek-reasoner: "In the next round of the conversation, the CoT from previous rounds is not concatenated into the context"; within the current tool loop, reasoning_content is passed back',
    source: 'https://api-docs.deepseek.com/guides/reasoning_model#multi-round-conversation',
    does: 'with the `model` option `deepseek-reasoner`, removes `reasoning_content` from assistant turns before the last user message (it keeps it, or an empty one, in the current tool loop); the V4 models keep it on every tool-calling turn',
  },
});
