import { isAbsolute, resolve } from 'node:path';

/**
 * Where file tools may act: `root` is the workspace; with `restrict` every path must stay
 * inside it (or inside one of `extraReadDirs` for reads only).
 */
export interface WorkspaceScope {
  readonly root: string;
  readonly restrict: boolean;
  readonly extraReadDirs: readonly string[];
}

/** Options shared by every file-system tool factory. */
export interface WorkspaceOptions {
  /** Workspace used when the call's `ToolContext.workspace` is empty. */
  workspace?: string;
  /** Confine every path to the workspace (default true; the reference defaults to false). */
  restrictToWorkspace?: boolean;
  /** Extra directories `read_file`, `list_dir`, `find_files` and `grep` may read (e.g. skills). */
  extraReadDirs?: readonly string[];
}

/**
 * The effective scope of one call: the context's workspace wins over the factory's, so one
 * tool instance serves many sessions. Returns undefined when neither names a workspace.
 */
export function scopeFor(options: WorkspaceOptions, contextWorkspace: string | undefined): WorkspaceScope | undefined {
  const root = contextWorkspace || options.workspace;
  if (!root) return undefined;
  return {
    root: isAbsolute(root) ? resolve(root) : resolve(process.cwd(), root),
    restrict: options.restrictToWorkspace ?? true,
    extraReadDirs: (options.extraReadDirs ?? []).map((d) => resolve(d)),
  };
}
