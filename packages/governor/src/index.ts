export { enforceRoleAlternation, CONVERSATION_CONTINUED } from './enforce-role-alternation.js';
export type { RoleAlternationOptions } from './enforce-role-alternation.js';
export { findLegalMessageStart } from './find-legal-message-start.js';
