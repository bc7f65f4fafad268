/**
 * Remembers what `read_file` returned per session so an identical re-read of an unchanged file
 * can answer `[File unchanged since last read: <path>]` instead of the whole text (the
 * reference's token saver). Methods are synchronous, never throw, and must not keep references
 * to mutable caller data.
 */
export interface ReadTracker {
  /** True when `session` already read exactly `key` at `version`. */
  seen(session: string, key: string, version: string): boolean;
  /** Records a successful read. */
  record(session: string, key: string, version: string): void;
  /** Forgets a session (e.g. on `/new` or after compaction dropped the earlier read). */
  forget(session: string): void;
}

/** An in-memory `ReadTracker` keeping at most `maxPerSession` entries per session (oldest dropped). */
export function createReadTracker(maxPerSession = 256): ReadTracker {
  const sessions = new Map<string, Map<string, string>>();
  return {
    seen: (session, key, version) => sessions.get(session)?.get(key) === version,
    record(session, key, version) {
      let entries = sessions.get(session);
      if (!entries) sessions.set(session, (entries = new Map()));
      entries.delete(key);
      entries.set(key, version);
      if (entries.size > maxPerSession) entries.delete(entries.keys().next().value as string);
    },
    forget: (session) => void sessions.delete(session),
  };
}
