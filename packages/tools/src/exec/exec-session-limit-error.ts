import { NanobotError } from '@nanobot/schema';

/** The caller already has as many background sessions as allowed, or the agent has. Code `EXEC_SESSION_LIMIT`. */
export class ExecSessionLimitError extends NanobotError {
  readonly limit: number;

  constructor(limit: number) {
    super('EXEC_SESSION_LIMIT', `maximum exec sessions reached (${limit})`);
    this.limit = limit;
  }
}
