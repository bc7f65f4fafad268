import { fail, errorMessage, type Outcome } from '../tool/builtin-tool.js';
import { WorkspaceViolationError } from '../workspace/workspace-violation-error.js';

/**
 * Turns an error thrown while touching the file system into the outcome the model reads:
 * boundary refusals keep their typed error, common errno cases get short, actionable texts.
 */
export function fileFailure(error: unknown, path: string, action: string): Outcome {
  if (error instanceof WorkspaceViolationError) return fail(`Error: ${error.message}`, error);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return fail(`Error: File not found: ${path}`);
    case 'EISDIR':
      return fail(`Error: Not a file: ${path}`);
    case 'ENOTDIR':
      return fail(`Error: Not a directory: ${path}`);
    case 'EACCES':
    case 'EPERM':
      return fail(`Error: Permission denied: ${path}`);
    default:
      return fail(`Error ${action}: ${errorMessage(error)}`);
  }
}

/** The outcome for a call that names no workspace at all (a wiring mistake, reported as data). */
export function noWorkspace(tool: string): Outcome {
  return fail(`Error: ${tool} has no workspace: pass one in the tool options or the call's ToolContext.`);
}
