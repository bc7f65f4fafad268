// Repair steps: make a stored history structurally sound (every call answered once, right after
// its turn; nothing without its call; no placeholder turns, no nameless calls, unique ids).
export { stripPlaceholderAssistantMessages } from './strip-placeholder-assistant-messages.js';
export { stripMalformedToolCalls } from './strip-malformed-tool-calls.js';
export { repairToolCallIds } from './repair-tool-call-ids.js';
export { dropOrphanToolResults } from './drop-orphan-tool-results.js';
export { regroupToolResults } from './regroup-tool-results.js';
export { backfillMissingToolResults } from './backfill-missing-tool-results.js';
