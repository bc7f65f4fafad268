import { NanobotError } from '@nanobot/schema';

/**
 * Appended to every workspace refusal: the model must learn that the boundary is a policy,
 * not a puzzle, or it retries through another tool, a symlink or the shell.
 */
export const WORKSPACE_BOUNDARY_NOTE =
  'This is a hard policy boundary: do not retry with other tools, symlinks, shell tricks or working_dir overrides. ' +
  'If the user needs this resource, ask them to copy it into the workspace.';

/**
 * A tool was asked to touch a path outside the workspace it is confined to. Tools do not throw
 * it at the model: they return an error result that carries it (see `violationOf`), so the
 * runner classifies by `instanceof`/`code` instead of matching text.
 */
export class WorkspaceViolationError extends NanobotError {
  /** The path exactly as the model gave it (the runner's throttling signature). */
  readonly path: string;
  /** The directory the path had to stay inside. */
  readonly workspace: string;

  constructor(path: string, workspace: string, message?: string, options: { cause?: unknown } = {}) {
    super('WORKSPACE_VIOLATION', message ?? `Path ${path} is outside allowed directory ${workspace}`, options);
    this.path = path;
    this.workspace = workspace;
  }
}
