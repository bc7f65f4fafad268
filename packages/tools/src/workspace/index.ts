/** Workspace confinement: resolving paths inside the workspace, opening files and directories without escaping it. */
export { WorkspaceViolationError, WORKSPACE_BOUNDARY_NOTE } from './workspace-violation-error.js';
export { resolveWorkspacePath, isInside } from './resolve-workspace-path.js';
export { openWorkspaceFile } from './open-workspace-file.js';
export type { OpenedFile } from './open-workspace-file.js';
export { scopeFor } from './workspace-scope.js';
export type { WorkspaceOptions, WorkspaceScope } from './workspace-scope.js';
