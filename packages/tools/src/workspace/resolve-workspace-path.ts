import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { WorkspaceViolationError, WORKSPACE_BOUNDARY_NOTE } from './workspace-violation-error.js';
import type { WorkspaceScope } from './workspace-scope.js';

/** Whether `child` is `parent` or lies below it (both absolute and normalised). */
export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(sep) ? parent : parent + sep;
  return child.startsWith(prefix);
}

/**
 * Real path of `p` even when its tail does not exist yet: the deepest existing ancestor is
 * resolved through the file system (following symlinks) and the missing components appended.
 */
export async function realpathAllowMissing(p: string): Promise<string> {
  const missing: string[] = [];
  let current = p;
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const parent = dirname(current);
      if (parent === current) return p;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** Real paths of the directories a call may touch (`read` adds the extra read directories). */
export async function allowedRoots(scope: WorkspaceScope, mode: 'read' | 'write'): Promise<string[]> {
  const dirs = mode === 'read' ? [scope.root, ...scope.extraReadDirs] : [scope.root];
  return Promise.all(dirs.map((d) => realpathAllowMissing(d)));
}

/** The model-visible refusal, as the reference words it, plus the hard-boundary note. */
export function workspaceViolation(path: string, scope: WorkspaceScope): WorkspaceViolationError {
  return new WorkspaceViolationError(
    path,
    scope.root,
    `Path ${path} is outside allowed directory ${scope.root}. ${WORKSPACE_BOUNDARY_NOTE}`,
  );
}

/**
 * Resolves a model-given path against the workspace and, when the scope restricts, proves the
 * target stays inside: lexically first (`..`, absolute paths), then through the file system
 * (symlinks anywhere in the path). Returns the real path to open. Throws
 * `WorkspaceViolationError`; a symlink swapped in after this check is caught at open time by
 * `openWorkspaceFile`, which re-verifies what it actually opened.
 */
export async function resolveWorkspacePath(scope: WorkspaceScope, input: string, mode: 'read' | 'write'): Promise<string> {
  let expanded = input;
  if (expanded === '~' || expanded.startsWith('~/')) expanded = homedir() + expanded.slice(1);
  const absolute = isAbsolute(expanded) ? resolve(expanded) : resolve(scope.root, expanded);
  if (!scope.restrict) return realpathAllowMissing(absolute);
  const roots = await allowedRoots(scope, mode);
  const lexicalRoots = mode === 'read' ? [scope.root, ...scope.extraReadDirs] : [scope.root];
  const real = await realpathAllowMissing(absolute);
  const lexicallyInside = lexicalRoots.some((r) => isInside(absolute, r)) || roots.some((r) => isInside(absolute, r));
  if (!lexicallyInside || !roots.some((r) => isInside(real, r))) throw workspaceViolation(input, scope);
  return real;
}
