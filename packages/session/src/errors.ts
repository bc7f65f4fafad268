import { NanobotError } from '@nanobot/schema';

/** Another process holds a session (or memory) file lock for longer than the configured wait. */
export class SessionLockError extends NanobotError {
  /** Path of the lock file that could not be taken. */
  readonly lockPath: string;
  constructor(lockPath: string, message: string) {
    super('SESSION_LOCK_TIMEOUT', message);
    this.lockPath = lockPath;
  }
}

/** A session key or storage location the store refuses (empty key, sessions dir inside the workspace…). */
export class SessionStoreError extends NanobotError {
  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
  }
}

/**
 * A whole-file rewrite was asked for a session whose file another process changed since this
 * store last read or wrote it; rewriting would silently drop that process's messages.
 * Reload the session and apply the change again.
 */
export class SessionConflictError extends NanobotError {
  readonly key: string;
  constructor(key: string, message: string) {
    super('SESSION_CONFLICT', message);
    this.key = key;
  }
}
