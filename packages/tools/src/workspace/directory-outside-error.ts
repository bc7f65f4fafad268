import { NanobotError } from '@nanobot/schema';

/**
 * A directory to list was (or became, by a swapped-in symlink) outside the allowed roots. Code
 * `DIRECTORY_OUTSIDE`; the listing tools turn it into a `WorkspaceViolationError` for the model.
 */
export class DirectoryOutsideError extends NanobotError {
  /** The path the walk was asked to open. */
  readonly path: string;

  constructor(path: string) {
    super('DIRECTORY_OUTSIDE', `Directory ${path} is outside the allowed roots`);
    this.path = path;
  }
}
