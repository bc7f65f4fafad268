import { readdir, stat } from 'node:fs/promises';

import type { Session, SessionStore, SessionWarning } from '@nanobot/session';
import { CliError } from './cli-error.js';

/** A session store the CLI can name locations in: the JSONL store, or PostgreSQL's with a `pathFor` naming the row. */
export type CliSessionStore = SessionStore & { pathFor(key: string): string };

/** A fresh session name, e.g. `chat-20261130-004512-3f9a` (sortable, collision-safe). */
export function newSessionKey(prefix: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${prefix}-${stamp}-${Math.random().toString(16).slice(2, 6)}`;
}

/** One line describing the first skipped lines of a session file. */
export function describeWarnings(warnings: readonly SessionWarning[]): string {
  const shown = warnings.slice(0, 3).map((w) => (w.line > 0 ? `line ${w.line}: ${w.message}` : w.message));
  return `${warnings.length} unreadable line(s) (${shown.join('; ')}${warnings.length > 3 ? '; …' : ''})`;
}

/**
 * Loads a stored session and refuses one whose file has corrupt or invalid lines: running a turn
 * on it would replay a history with holes, so the CLI stops with one line and leaves the file
 * exactly as it is (the user can move it aside or repair it). Throws `CliError('CLI_SESSION')`.
 */
export async function loadSessionStrictly(store: CliSessionStore, key: string): Promise<{ session: Session; created: boolean }> {
  let loaded;
  try {
    loaded = await store.load(key);
  } catch (error) {
    throw new CliError('CLI_SESSION', `cannot read session "${key}": ${(error as Error).message}`, { cause: error });
  }
  if (loaded.warnings.length > 0) {
    throw new CliError(
      'CLI_SESSION',
      `session "${key}" (${store.pathFor(key)}) has ${describeWarnings(loaded.warnings)}; nothing was changed — repair or move the file, or start another session`,
    );
  }
  return { session: loaded.session, created: loaded.created };
}

/** The most recently modified stored session, or null when there is none. */
export async function latestSessionKey(store: CliSessionStore): Promise<string | null> {
  const keys = await store.list().catch(() => [] as string[]);
  let best: { key: string; mtime: number } | null = null;
  for (const key of keys) {
    const info = await stat(store.pathFor(key)).catch(() => null);
    if (info && (!best || info.mtimeMs > best.mtime)) best = { key, mtime: info.mtimeMs };
  }
  return best?.key ?? null;
}

/** Whether the sessions directory holds any file at all (for a clearer "no sessions" message). */
export async function sessionsDirIsEmpty(dir: string): Promise<boolean> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return !names.some((n) => n.endsWith('.jsonl'));
}

