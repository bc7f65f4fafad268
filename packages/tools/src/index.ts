export { createBuiltinTools } from './create-builtin-tools.js';
export type { BuiltinToolsOptions } from './create-builtin-tools.js';

export { createReadFileTool, createReadFileSpec } from './read-file-tool.js';
export type { ReadFileArgs, ReadFileOptions } from './read-file-tool.js';
export { createWriteFileTool, createWriteFileSpec } from './write-file-tool.js';
export type { WriteFileArgs } from './write-file-tool.js';
export { createEditFileTool, createEditFileSpec } from './edit-file-tool.js';
export type { EditFileArgs } from './edit-file-tool.js';
export { createApplyPatchTool, createApplyPatchSpec } from './apply-patch-tool.js';
export type { ApplyPatchArgs, PatchEdit } from './apply-patch-tool.js';
export { lineDiffStats } from './line-diff-stats.js';
export { findEditMatches } from './find-edit-matches.js';
export type { EditMatch, MatchKind } from './find-edit-matches.js';
export { createListDirTool, createListDirSpec } from './list-dir-tool.js';
export type { ListDirArgs } from './list-dir-tool.js';
export { createFindFilesTool, createFindFilesSpec } from './find-files-tool.js';
export type { FindFilesArgs } from './find-files-tool.js';
export { createGrepTool, createGrepSpec } from './grep-tool.js';
export type { GrepArgs, GrepOptions } from './grep-tool.js';
export { IGNORED_DIRS } from './walk-tree.js';

export { createExecTool, createExecSpec } from './exec-tool.js';
export type { ExecArgs, ExecOptions } from './exec-tool.js';
export { checkCommandPolicy, DEFAULT_DENY_PATTERNS, EXEC_BOUNDARY_NOTE, extractCommandPaths, extractCommandUrls, splitTopLevel } from './exec-guard.js';
export type { CommandPolicy, PolicyVerdict } from './exec-guard.js';
export { runCommand, killProcessGroup } from './run-command.js';
export type { RunCommandOptions, RunCommandResult, CapturedStream } from './run-command.js';
export { truncateMiddle } from './truncate-middle.js';

export { createWebFetchTool, createWebFetchSpec, UNTRUSTED_CONTENT_BANNER } from './web-fetch-tool.js';
export type { WebFetchArgs, WebFetchOptions } from './web-fetch-tool.js';
export { createWebSearchTool, createWebSearchSpec, formatSearchResults } from './web-search-tool.js';
export type { WebSearchArgs, WebSearchBackend, WebSearchHit, WebSearchOptions } from './web-search-tool.js';
export { guardedFetch } from './guarded-fetch.js';
export type { GuardedFetchOptions, GuardedResponse } from './guarded-fetch.js';
export { pinnedFetch } from './pinned-fetch.js';
export type { FetchInit, FetchLike } from './pinned-fetch.js';
export { isBlockedAddress, systemLookup, UrlRejectedError, vetUrl } from './ssrf-guard.js';
export type { HostLookup, ResolvedAddress, SsrfPolicy, VettedTarget } from './ssrf-guard.js';
export { htmlToReadableText } from './html-to-readable-text.js';
export type { ExtractMode } from './html-to-readable-text.js';

export { createMessageTool, createMessageSpec } from './message-tool.js';
export type { MessageArgs, MessageSender, MessageToolOptions, OutboundMessage } from './message-tool.js';
export { createSpawnTool, createSpawnSpec, defaultSpawnLabel } from './spawn-tool.js';
export type { SpawnArgs, SpawnOutcome, SpawnRequest, SubagentSpawner } from './spawn-tool.js';

export { WorkspaceViolationError, WORKSPACE_BOUNDARY_NOTE } from './workspace-violation-error.js';
export { SsrfBlockedError } from './ssrf-blocked-error.js';
export { resolveWorkspacePath, isInside } from './resolve-workspace-path.js';
export { openWorkspaceFile } from './open-workspace-file.js';
export type { OpenedFile } from './open-workspace-file.js';
export { scopeFor } from './workspace-scope.js';
export type { WorkspaceOptions, WorkspaceScope } from './workspace-scope.js';
export { toTool } from './to-tool.js';
export type { BuiltinToolSpec, CallContext, Outcome, ToolScope } from './builtin-tool.js';
export { createReadTracker } from './read-tracker.js';
export type { ReadTracker } from './read-tracker.js';
