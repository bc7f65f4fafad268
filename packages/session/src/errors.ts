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

/**
 * Writing a session file failed: `SESSION_DISK_FULL` (ENOSPC, EDQUOT), `SESSION_IO_ERROR` (EIO
 * and any other write/fsync failure) or `SESSION_SHORT_WRITE` (the system accepted no more
 * bytes without saying why). The save is not acknowledged: the file was cut back to what it held
 * before (`rolledBack`), so no torn or partial line is left to be read as data later.
 */
export class SessionWriteError extends NanobotError {
  readonly key: string;
  /** Path of the file being written. */
  readonly path: string;
  /** Whether the file was restored to its size (and header) from before the save. */
  readonly rolledBack: boolean;
  constructor(code: string, key: string, path: string, message: string, options: { cause?: unknown; rolledBack?: boolean } = {}) {
    super(code, message, options);
    this.key = key;
    this.path = path;
    this.rolledBack = options.rolledBack ?? true;
  }
}
