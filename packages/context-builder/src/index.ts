export { ContextBuilder, isTemplate, RECENT_HISTORY_MAX_ENTRIES, RECENT_HISTORY_MAX_TOKENS } from './context-builder.js';
export type { ArchivedSummary, BuildMessagesOptions, ContextBuilderOptions, PromptSection, SystemPromptOptions } from './context-builder.js';
export { nodeWorkspaceFs } from './workspace-fs.js';
export type { WorkspaceFs } from './workspace-fs.js';
export {
  appendRuntimeContext,
  currentTimeBlock,
  detachRuntimeContext,
  formatRuntimeContextLines,
  normalizeRuntimeContextBlocks,
  RUNTIME_CONTEXT_FOOTER,
  RUNTIME_CONTEXT_HEADER,
} from './runtime-context.js';
export type { RuntimeContextBlock, RuntimeContextMarker } from './runtime-context.js';
export { appendAttachmentLines, buildUserContent, detectImageMime } from './user-content.js';
export { mergeContent, mergeSameRoleMessage } from './merge-message.js';
export { parseCursorFile, parseHistoryEntries } from './history-entries.js';
export type { HistoryEntry, HistoryWarning } from './history-entries.js';
export { buildSkillsSummary, hasBinaryOnPath, isSkillAvailable, loadSkills, parseFrontMatter } from './skills.js';
export type { Skill, SkillEnvironment, SkillSource } from './skills.js';
export {
  formatHint,
  LEGACY_SOUL_TEMPLATE,
  platformPolicy,
  renderIdentity,
  renderSkillsSection,
  SECTION_SEPARATOR,
  TOOL_CONTRACT,
  UNTRUSTED_CONTENT_NOTE,
  WORKSPACE_TEMPLATES,
} from './templates.js';
export type { IdentityInput } from './templates.js';
export { syncWorkspaceTemplates } from './sync-workspace-templates.js';
