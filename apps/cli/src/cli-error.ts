import { NanobotError } from '@nanobot/schema';

/**
 * A command line, workspace, config file or session the CLI refuses. `code` is stable
 * (`CLI_USAGE`, `CLI_WORKSPACE`, `CLI_CONFIG`, `CLI_SESSION`, `CLI_PROVIDER`); the message is one
 * line a user can act on. These exit with status 2 and change nothing on disk.
 */
export class CliError extends NanobotError {
  constructor(code: 'CLI_USAGE' | 'CLI_WORKSPACE' | 'CLI_CONFIG' | 'CLI_SESSION' | 'CLI_PROVIDER', message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
  }
}
