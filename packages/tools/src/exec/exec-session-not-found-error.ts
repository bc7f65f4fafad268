import { NanobotError } from '@nanobot/schema';

/** No session with this id belongs to the caller (unknown, finished, or another chat's). Code `EXEC_SESSION_NOT_FOUND`. */
export class ExecSessionNotFoundError extends NanobotError {
  readonly sessionId: string;

  constructor(sessionId: string) {
    super('EXEC_SESSION_NOT_FOUND', `exec session not found: '${sessionId}'`);
    this.sessionId = sessionId;
  }
}
