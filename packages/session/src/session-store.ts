import type { Session } from './session.js';
import type { SessionWarning } from './session-file-format.js';

/** A loaded session plus what the loader skipped. */
export interface SessionLoadResult {
  session: Session;
  /** Lines skipped as corrupt, truncated or invalid; empty for a clean file. */
  warnings: SessionWarning[];
  /** True when no stored session existed and a fresh one was created (not yet written). */
  created: boolean;
}

/**
 * Where sessions live. `load` never throws for bad content (it reports warnings); `save`
 * persists everything that changed since the session was loaded or last saved.
 */
export interface SessionStore {
  /** Loads the session for `key`, or a new empty one when none is stored. */
  load(key: string): Promise<SessionLoadResult>;
  /** Persists the session's changes since its last load/save. */
  save(session: Session): Promise<void>;
  /** Deletes the stored session; returns whether one existed. */
  delete(key: string): Promise<boolean>;
  /** Keys of all stored sessions, sorted. */
  list(): Promise<string[]>;
}
