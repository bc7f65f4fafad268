import type { Outcome } from '../tool/builtin-tool.js';
import { fileFailure } from './file-failure.js';
import { DirectoryOutsideError } from '../workspace/directory-outside-error.js';
import { workspaceViolation } from '../workspace/resolve-workspace-path.js';
import type { WorkspaceScope } from '../workspace/workspace-scope.js';

/** The outcome of a walk that failed at its root: a swapped-in symlink is a boundary refusal. */
export function walkFailure(error: unknown, path: string, scope: WorkspaceScope, action: string): Outcome {
  return fileFailure(error instanceof DirectoryOutsideError ? workspaceViolation(path, scope) : error, path, action);
}
