import { chatContentDocs, modelSwitchDocs, toolPairingDocs, type RuleDocs } from './shared-docs.js';

const SOURCE = 'https://platform.openai.com/docs/api-reference/chat/create';

/** OpenAI Chat Completions' rules, as OpenAI states them. */
export const OPENAI_RULE_DOCS: RuleDocs = Object.freeze({ ...toolPairingDocs(SOURCE), ...chatContentDocs(SOURCE), ...modelSwitchDocs([]) });
