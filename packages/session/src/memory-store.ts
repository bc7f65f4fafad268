import { appendFile, mkdir, open, readFile, rename, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Message } from '@nanobot/schema';
import { failureReplayRow, stripThink, truncateText } from '@nanobot/schema';
import { detachRuntimeContext, parseCursorFile, parseHistoryEntries, type HistoryEntry, type HistoryWarning, type RuntimeContextMarker } from '@nanobot/context-builder';
import { withFileLock, type FileLockOptions } from './file-lock.js';
import { localMinuteTimestamp } from './local-time.js';
import { contentWithMediaBreadcrumbs } from './media-breadcrumbs.js';

/** Default cap of one history entry (characters). */
export const HISTORY_ENTRY_MAX_CHARS = 64_000;
/** Cap of a raw-archive entry (characters). */
export const RAW_ARCHIVE_MAX_CHARS = 16_000;
/** Entries kept by `compactHistory` (never dropping ones Dream has not processed). */
export const HISTORY_MAX_ENTRIES = 1000;
const TAIL_BYTES = 64 * 1024;

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** The agent workspace; files live under `<workspace>/memory/`. */
  workspace: string;
  now?: () => Date;
  lock?: FileLockOptions;
  /** Called once per read that skipped malformed history lines (synchronous, not awaited, must not throw). */
  onWarning?: (warnings: HistoryWarning[]) => void;
}

/** Options of {@link MemoryStore.appendHistory}. */
export interface AppendHistoryOptions {
  maxChars?: number;
  sessionKey?: string | null;
}

function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part && typeof part === 'object' && part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

/**
 * The workspace's memory files: `memory/MEMORY.md` (long-term facts), `memory/history.jsonl`
 * (append-only archive of consolidated turns, one `{cursor, timestamp, content, session_key?}`
 * per line), `memory/.cursor` (last allocated cursor) and `memory/.dream_cursor`.
 * Appends take a file lock so concurrent writers never reuse a cursor; readers skip
 * malformed lines and report them.
 */
export class MemoryStore {
  readonly workspace: string;
  readonly memoryDir: string;
  readonly historyFile: string;
  readonly memoryFile: string;
  readonly cursorFile: string;
  readonly dreamCursorFile: string;
  private readonly now: () => Date;
  private readonly lockOptions: FileLockOptions;
  private readonly onWarning: MemoryStoreOptions['onWarning'];

  constructor(options: MemoryStoreOptions) {
    this.workspace = resolve(options.workspace);
    this.memoryDir = join(this.workspace, 'memory');
    this.historyFile = join(this.memoryDir, 'history.jsonl');
    this.memoryFile = join(this.memoryDir, 'MEMORY.md');
    this.cursorFile = join(this.memoryDir, '.cursor');
    this.dreamCursorFile = join(this.memoryDir, '.dream_cursor');
    this.now = options.now ?? (() => new Date());
    this.lockOptions = options.lock ?? {};
    this.onWarning = options.onWarning;
  }

  private async read(path: string): Promise<string | null> {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return null;
      throw error;
    }
  }

  private async atomicWrite(path: string, text: string): Promise<void> {
    await mkdir(this.memoryDir, { recursive: true });
    const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, text, { flag: 'wx' });
    await rename(temp, path);
  }

  /** MEMORY.md's text ('' when missing). */
  async readMemory(): Promise<string> {
    return (await this.read(this.memoryFile)) ?? '';
  }

  /** Replaces MEMORY.md atomically. */
  async writeMemory(text: string): Promise<void> {
    await this.atomicWrite(this.memoryFile, text);
  }

  /** All valid history entries in file order; malformed lines are skipped and reported. */
  async readHistory(): Promise<{ entries: HistoryEntry[]; warnings: HistoryWarning[] }> {
    const parsed = parseHistoryEntries((await this.read(this.historyFile)) ?? '');
    if (parsed.warnings.length > 0) this.onWarning?.(parsed.warnings);
    return parsed;
  }

  /** Entries Dream has not processed yet (cursor above the Dream cursor). */
  async readUnprocessedHistory(): Promise<HistoryEntry[]> {
    const cursor = await this.getDreamCursor();
    return (await this.readHistory()).entries.filter((e) => e.cursor > cursor);
  }

  /** The last entry Dream processed (0 when none). */
  async getDreamCursor(): Promise<number> {
    return parseCursorFile(await this.read(this.dreamCursorFile));
  }

  /** Records that Dream processed everything up to `cursor`. */
  async setDreamCursor(cursor: number): Promise<void> {
    await this.atomicWrite(this.dreamCursorFile, String(Math.max(0, Math.floor(cursor))));
  }

  /** Last entry's cursor (reading only the file's tail unless it is torn) and whether the file ends with a newline. */
  private async historyTail(): Promise<{ lastCursor: number; endsWithNewline: boolean }> {
    let handle;
    try {
      handle = await open(this.historyFile, 'r');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return { lastCursor: 0, endsWithNewline: true };
      throw error;
    }
    let endsWithNewline = true;
    try {
      const size = (await handle.stat()).size;
      const length = Math.min(size, TAIL_BYTES);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      endsWithNewline = length === 0 || buffer[length - 1] === 0x0a;
      const lines = buffer.toString('utf8').split('\n');
      if (length < size) lines.shift(); // possibly cut mid-line
      const { entries } = parseHistoryEntries(lines.join('\n'));
      const lastLine = lines.filter((l) => l.trim() !== '').at(-1);
      if (lastLine === undefined) return { lastCursor: 0, endsWithNewline };
      if (entries.length > 0 && JSON.stringify(JSON.parse(lastLine)) === JSON.stringify(entries.at(-1))) {
        return { lastCursor: entries.at(-1)!.cursor, endsWithNewline };
      }
    } catch {
      // fall through to the full scan
    } finally {
      await handle.close();
    }
    // The tail is torn or hand-edited: take the maximum over the whole file.
    const { entries } = parseHistoryEntries((await this.read(this.historyFile)) ?? '');
    return { lastCursor: entries.reduce((max, e) => Math.max(max, e.cursor), 0), endsWithNewline };
  }

  /**
   * Appends one entry and returns its cursor. The text is right-trimmed, think tags removed
   * (a leak-only entry is stored as ''), and truncated to `maxChars`. Cursor = max(.cursor,
   * last entry's cursor) + 1, allocated under the history lock.
   */
  async appendHistory(entry: string, options: AppendHistoryOptions = {}): Promise<number> {
    const maxChars = options.maxChars ?? HISTORY_ENTRY_MAX_CHARS;
    let content = entry.trimEnd();
    // The reference's strip_think (shared via @nanobot/schema): a leak-only entry becomes ''
    // rather than storing the model's reasoning.
    content = stripThink(content);
    if ([...content].length > maxChars) content = truncateText(content, maxChars);
    await mkdir(this.memoryDir, { recursive: true });
    return withFileLock(`${this.historyFile}.lock`, async () => {
      const counter = parseCursorFile(await this.read(this.cursorFile));
      const tail = await this.historyTail();
      const cursor = Math.max(counter, tail.lastCursor) + 1;
      const record: HistoryEntry = { cursor, timestamp: localMinuteTimestamp(this.now()), content };
      if (options.sessionKey) record.session_key = options.sessionKey;
      const prefix = tail.endsWithNewline ? '' : '\n';
      await appendFile(this.historyFile, `${prefix}${JSON.stringify(record)}\n`);
      await this.atomicWrite(this.cursorFile, String(cursor));
      return cursor;
    }, this.lockOptions);
  }

  /**
   * Fallback archive when summarisation fails: `[RAW] <n> messages` followed by one line per
   * message with content (`[<time>] <ROLE>[ [tools: a, b]]: <text>`, runtime context removed,
   * image breadcrumbs added), capped at 16 000 characters. Returns the cursor.
   */
  async rawArchive(messages: readonly Message[], sessionKey?: string | null): Promise<number> {
    const lines: string[] = [];
    for (const message of messages) {
      const stamp = typeof message.timestamp === 'string' ? message.timestamp.slice(0, 16) : '?';
      // A stored failure is archived as the event it is, never as the assistant's or a tool's words.
      const failure = failureReplayRow(message);
      if (failure !== null) {
        lines.push(`[${stamp}] ${failure.role === 'tool' ? 'TOOL' : 'EVENT'}: ${textOf(failure.content ?? null)}`);
        continue;
      }
      let content = message.content ?? null;
      if (message._runtime_context) content = detachRuntimeContext(content, message._runtime_context as RuntimeContextMarker);
      const withCrumbs = contentWithMediaBreadcrumbs({ role: message.role, content, media: message.media }) ?? null;
      const text = textOf(withCrumbs).trim();
      if (text === '') continue;
      const tools = Array.isArray(message.tool_calls)
        ? message.tool_calls.map((c) => c?.function?.name).filter((n): n is string => typeof n === 'string' && n !== '')
        : [];
      const toolPart = tools.length > 0 ? ` [tools: ${tools.join(', ')}]` : '';
      lines.push(`[${stamp}] ${message.role.toUpperCase()}${toolPart}: ${text}`);
    }
    const entry = truncateText(`[RAW] ${messages.length} messages\n${lines.join('\n')}`, RAW_ARCHIVE_MAX_CHARS);
    return this.appendHistory(entry, { maxChars: RAW_ARCHIVE_MAX_CHARS, sessionKey });
  }

  /** Keeps at most `maxEntries` entries, never dropping ones newer than the Dream cursor; rewrites atomically. */
  async compactHistory(maxEntries = HISTORY_MAX_ENTRIES): Promise<number> {
    return withFileLock(`${this.historyFile}.lock`, async () => {
      const text = await this.read(this.historyFile);
      if (text === null) return 0;
      const { entries } = parseHistoryEntries(text);
      if (entries.length <= maxEntries) return 0;
      const dream = await this.getDreamCursor();
      let drop = entries.length - maxEntries;
      let dropped = 0;
      const kept = entries.filter((e) => {
        if (drop > 0 && e.cursor <= dream) {
          drop -= 1;
          dropped += 1;
          return false;
        }
        return true;
      });
      await this.atomicWrite(this.historyFile, kept.map((e) => JSON.stringify(e)).join('\n') + (kept.length ? '\n' : ''));
      return dropped;
    }, this.lockOptions);
  }
}
