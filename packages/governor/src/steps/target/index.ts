// Target steps: make the copy acceptable to the API it is sent to (content rules, instructions,
// role order).
export { GOVERN_TARGETS, isInstructionRole } from './govern-target.js';
export type { GovernTarget } from './govern-target.js';
export { legalizeForTarget, instructionNoteHeader, ANTHROPIC_TOOL_ID_PATTERN, EMPTY_USER_CONTENT } from './legalize-for-target.js';
export type { LegalizeForTargetResult, TargetChange, TargetChangeReason } from './legalize-for-target.js';
export { enforceRoleAlternation, CONVERSATION_CONTINUED } from './enforce-role-alternation.js';
export type { RoleAlternationOptions } from './enforce-role-alternation.js';
