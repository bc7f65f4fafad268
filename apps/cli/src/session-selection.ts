import { readdir, stat } from 'node:fs/promises';

import type { Message } from '@nanobot/schema';
import type { Session, SessionStore, SessionWarning } from '@nanobot/session';
import { CliError } from './cli-error.js';
import { plural } from './plural.js';

/**
 * A session store the CLI can name locations in: the JSONL store, or PostgreSQL's with a
 * `pathFor` naming the row. `locate` (the JSONL store) finds the file a session is read from
 * now, which may be an older name than `pathFor`'s.
 */
export type CliSessionStore = SessionStore & { pathFor(key: string): string; locate?(key: string): Promise<string | null> };

/** Where the session `key` is stored now, or null when it is not (a file store looks on disk). */
export async function storedLocation(store: CliSessionStore, key: string): Promise<string | null> {
  if (store.locate) return store.locate(key);
  const path = store.pathFor(key);
  return (await stat(path).catch(() => null)) ? path : null;
}

/** A fresh session name, e.g. `chat-20261130-004512-3f9a` (sortable, collision-safe). */
export function newSessionKey(prefix: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${prefix}-${stamp}-${Math.random().toString(16).slice(2, 6)}`;
}

/**
 * One line describing what is wrong with a session file: the skipped lines (the first three
 * named), then file-wide problems such as a missing metadata record, each counted as what it is.
 */
export function describeWarnings(warnings: readonly SessionWarning[]): string {
  const lines = warnings.filter((w) => w.line > 0);
  const whole = warnings.filter((w) => w.line <= 0);
  const parts: string[] = [];
  if (lines.length > 0) {
    const shown = lines.slice(0, 3).map((w) => {
      // The store's own texts already say "Line 3 is …; skipped": keep one of each.
      const message = w.message.replace(/;\s*skipped\.?$/i, '');
      return message.startsWith(`Line ${w.line} `) ? `l${message.slice(1)}` : `line ${w.line}: ${message}`;
    });
    parts.push(`${plural(lines.length, 'unreadable line')}, skipped (${shown.join('; ')}${lines.length > 3 ? '; …' : ''})`);
  }
  for (const w of whole) parts.push(w.kind === 'missing-header' ? 'no metadata record' : w.message.charAt(0).toLowerCase() + w.message.slice(1));
  return parts.join('; ');
}

/**
 * One line per stored assistant message whose `tool_calls` hold entries that are not tool calls
 * (no string id or function name: a hand-edited or foreign file). They stay on disk as they are;
 * the governor leaves them out of what the model sees. Pure.
 */
export function malformedToolCallNotes(key: string, messages: readonly Message[]): string[] {
  const notes: string[] = [];
  messages.forEach((m, index) => {
    if (m.role !== 'assistant' || m.tool_calls === undefined || m.tool_calls === null) return;
    const calls: unknown[] = Array.isArray(m.tool_calls) ? m.tool_calls : [m.tool_calls];
    const bad = calls.filter((c) => {
      if (!c || typeof c !== 'object') return true;
      const call = c as { id?: unknown; function?: unknown };
      const fn = call.function as { name?: unknown } | null | undefined;
      return typeof call.id !== 'string' || call.id === '' || !fn || typeof fn !== 'object' || typeof fn.name !== 'string' || fn.name === '';
    }).length;
    if (bad > 0) notes.push(`session ${key}: message ${index + 1} has ${plural(bad, 'malformed tool call')} (of ${calls.length}); kept on disk, not sent to the model`);
  });
  return notes;
}

/**
 * Loads a stored session and refuses one whose file has corrupt or invalid lines: running a turn
 * on it would replay a history with holes, so the CLI stops with one line and leaves the file
 * exactly as it is (the user can move it aside or repair it). Throws `CliError('CLI_SESSION')`.
 * `notices` names stored tool calls that are malformed (the turn still works: see
 * {@link malformedToolCallNotes}).
 */
export async function loadSessionStrictly(store: CliSessionStore, key: string): Promise<{ session: Session; created: boolean; notices: string[] }> {
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
  return { session: loaded.session, created: loaded.created, notices: malformedToolCallNotes(key, loaded.session.messages) };
}

/** The most recently modified stored session, or null when there is none. */
export async function latestSessionKey(store: CliSessionStore): Promise<string | null> {
  const keys = await store.list().catch(() => [] as string[]);
  let best: { key: string; mtime: number } | null = null;
  for (const key of keys) {
    const path = await storedLocation(store, key);
    const info = path === null ? null : await stat(path).catch(() => null);
    if (info && (!best || info.mtimeMs > best.mtime)) best = { key, mtime: info.mtimeMs };
  }
  return best?.key ?? null;
}

/** Whether the sessions directory holds any file at all (for a clearer "no sessions" message). */
export async function sessionsDirIsEmpty(dir: string): Promise<boolean> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return !names.some((n) => n.endsWith('.jsonl'));
}

