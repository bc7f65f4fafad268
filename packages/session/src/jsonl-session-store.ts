import { mkdir, open, readFile, readdir, rename, stat, unlink, appendFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { withFileLock, removeAbandonedLockFiles, type FileLockOptions } from './file-lock.js';
import { SessionConflictError, SessionStoreError } from './errors.js';
import { Session } from './session.js';
import type { SessionLoadResult, SessionStore } from './session-store.js';
import {
  headerRecord,
  legacySessionFileName,
  parseSessionFile,
  providerStateRecord,
  sessionFileName,
  sessionKeyFromFileName,
  type SessionWarning,
} from './session-file-format.js';

/**
 * When data is forced to disk. `always` (default): every append and every rewrite is fsynced
 * (and the directory after a rename), so an acknowledged message survives power loss.
 * `rewrites`: only rewrites are fsynced (a power cut may lose the last appended messages but never
 * corrupts earlier ones). `never`: leave it to the OS (tests, tmpfs). A process crash (SIGKILL)
 * loses no acknowledged message under any policy: appends are in the page cache once `write` returns.
 */
export type FsyncPolicy = 'always' | 'rewrites' | 'never';

/** Options of {@link JsonlSessionStore}. */
export interface JsonlSessionStoreOptions {
  /** Directory holding the session files (created on first write). */
  dir: string;
  /** When given, a `dir` inside this workspace is refused (sessions must not be edited by tools). */
  workspace?: string;
  fsync?: FsyncPolicy;
  lock?: FileLockOptions;
  /** Rewrite the file when superseded metadata records exceed this many bytes and half the live data. Default 64 KiB. */
  compactAfterBytes?: number;
  /**
   * Receives every load warning as well as returning it from `load` (called synchronously,
   * not awaited; must not throw; the warning object is shared, do not mutate it).
   */
  onWarning?: (key: string, warning: SessionWarning) => void;
  /** Clock for new sessions' timestamps. */
  now?: () => Date;
}

interface Tracking {
  file: string;
  persistedCount: number;
  structureVersion: number;
  headerJson: string;
  providerJson: string;
  /** File size after this store's last read or write; a different size means another writer. */
  size: number;
  supersededBytes: number;
  /** Raw text of lines skipped on load, kept aside when the file is rewritten. */
  skippedLines: string[];
  /** Whether the file ended with a newline at `size` (false after a torn write). */
  endsWithNewline: boolean;
}

const HEADER_IGNORED = new Set(['updated_at']);

function headerJson(session: Session): string {
  const record = headerRecord(session);
  return JSON.stringify(record, (k, v) => (HEADER_IGNORED.has(k) ? undefined : v));
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/**
 * The default session store: one JSONL file per session (metadata record first, then one
 * message per line), readable from and compatible with nanobot's session files.
 *
 * Saves append only what changed (new messages, and a fresh metadata record when metadata,
 * `lastConsolidated` or provider state changed), so a save costs O(new data), not O(session).
 * The file is rewritten atomically (temp file + fsync + rename + directory fsync) only when
 * messages were removed or replaced, when superseded metadata records pile up, or on `compact`.
 * Every file access holds the session's lock (see `withFileLock`), so two processes never
 * interleave, and saves of one session in this process are queued. Corrupt or torn lines are
 * skipped with a warning on load and preserved in `<file>.corrupt` when the file is rewritten.
 */
export class JsonlSessionStore implements SessionStore {
  readonly dir: string;
  private readonly fsyncPolicy: FsyncPolicy;
  private readonly lockOptions: FileLockOptions;
  private readonly compactAfterBytes: number;
  private readonly onWarning: JsonlSessionStoreOptions['onWarning'];
  private readonly now: () => Date;
  private readonly tracking = new WeakMap<Session, Tracking>();

  constructor(options: JsonlSessionStoreOptions) {
    this.dir = resolve(options.dir);
    if (options.workspace !== undefined) {
      const rel = relative(resolve(options.workspace), this.dir);
      if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) {
        throw new SessionStoreError(
          'SESSION_DIR_IN_WORKSPACE',
          `Refusing to store sessions inside the workspace (${this.dir}); the agent's file tools could edit them`,
        );
      }
    }
    this.fsyncPolicy = options.fsync ?? 'always';
    this.lockOptions = options.lock ?? {};
    this.compactAfterBytes = options.compactAfterBytes ?? 64 * 1024;
    this.onWarning = options.onWarning;
    this.now = options.now ?? (() => new Date());
  }

  /** Absolute path of the file holding `key`. */
  pathFor(key: string): string {
    if (typeof key !== 'string' || key === '') throw new SessionStoreError('SESSION_KEY_INVALID', 'A session key must be a non-empty string');
    return join(this.dir, sessionFileName(key));
  }

  private lock<T>(file: string, fn: () => Promise<T>): Promise<T> {
    return withFileLock(`${file}.lock`, fn, this.lockOptions);
  }

  /** Loads a session (or a fresh one); corrupt lines are skipped and reported, never fatal. */
  async load(key: string): Promise<SessionLoadResult> {
    const file = this.pathFor(key);
    await mkdir(this.dir, { recursive: true });
    return this.lock(file, async () => {
      let text: string | null = await readFile(file, 'utf8').catch((error: unknown) => {
        if (isErrno(error, 'ENOENT')) return null;
        throw error;
      });
      let legacy = false;
      if (text === null) {
        text = await readFile(join(this.dir, legacySessionFileName(key)), 'utf8').catch(() => null);
        legacy = text !== null;
      }
      if (text === null) {
        const session = new Session({ key }, this.now);
        this.track(session, file, 0, 0, [], false, true);
        return { session, warnings: [], created: true };
      }
      const parsed = parseSessionFile(text);
      const session = new Session(
        {
          key,
          messages: parsed.messages,
          createdAt: parsed.createdAt ?? undefined,
          updatedAt: parsed.updatedAt ?? undefined,
          metadata: parsed.metadata,
          lastConsolidated: parsed.lastConsolidated,
          providerState: parsed.providerState,
        },
        this.now,
      );
      const size = legacy ? -1 : Buffer.byteLength(text);
      const skipped = parsed.warnings.flatMap((w) => (w.raw ? [w.raw] : []));
      this.track(session, file, size, parsed.supersededBytes, skipped, !legacy, parsed.endsWithNewline);
      if (legacy) this.tracking.get(session)!.structureVersion = -1; // first save writes the new file name
      for (const warning of parsed.warnings) this.onWarning?.(key, warning);
      return { session, warnings: parsed.warnings, created: false };
    });
  }

  private track(
    session: Session,
    file: string,
    size: number,
    superseded: number,
    skipped: string[],
    persisted: boolean,
    endsWithNewline: boolean,
  ): void {
    this.tracking.set(session, {
      file,
      persistedCount: persisted ? session.messages.length : 0,
      structureVersion: session.structureVersion,
      headerJson: persisted ? headerJson(session) : '',
      providerJson: persisted ? JSON.stringify(session.providerState ?? null) : 'null',
      size,
      supersededBytes: superseded,
      skippedLines: skipped,
      endsWithNewline,
    });
  }

  /**
   * Persists changes since the last load/save: appends new messages and, when metadata, the
   * consolidation pointer or provider state changed, a new metadata record. Rewrites the file
   * atomically when messages were removed/replaced. Throws SessionConflictError when a rewrite
   * would drop another writer's lines, and SessionLockError when the lock cannot be taken.
   */
  async save(session: Session): Promise<void> {
    const file = this.pathFor(session.key);
    await mkdir(this.dir, { recursive: true });
    await this.lock(file, async () => {
      let t = this.tracking.get(session);
      const current = await stat(file).then(
        (s) => s.size,
        (error: unknown) => {
          if (isErrno(error, 'ENOENT')) return -1;
          throw error;
        },
      );
      if (!t) {
        if (current >= 0) {
          throw new SessionConflictError(session.key, `Session "${session.key}" is already stored; load it before saving`);
        }
        this.track(session, file, -1, 0, [], false, true);
        t = this.tracking.get(session)!;
      }
      const structural = t.structureVersion !== session.structureVersion || session.messages.length < t.persistedCount;
      if (current < 0 || structural) {
        if (current >= 0 && t.size >= 0 && current !== t.size) {
          throw new SessionConflictError(session.key, `Session "${session.key}" was changed by another writer; reload it before rewriting`);
        }
        await this.rewrite(session, t);
        return;
      }
      const lines: string[] = [];
      for (let i = t.persistedCount; i < session.messages.length; i += 1) lines.push(JSON.stringify(session.messages[i]));
      const newHeader = headerJson(session);
      const newProvider = JSON.stringify(session.providerState ?? null);
      let superseded = t.supersededBytes;
      if (newProvider !== t.providerJson) {
        const line = JSON.stringify(providerStateRecord(session.providerState ?? null));
        lines.push(line);
        superseded += Buffer.byteLength(line) + 1; // approximate: the previous record is now dead weight
      }
      if (newHeader !== t.headerJson) {
        const line = JSON.stringify(headerRecord(session));
        lines.push(line);
        superseded += Buffer.byteLength(line) + 1;
      }
      if (lines.length === 0) return;
      if (superseded > this.compactAfterBytes && superseded * 2 > current) {
        await this.rewrite(session, t);
        return;
      }
      // Our own appends always end with a newline; only a torn tail or another writer needs a look.
      const knownClean = current === t.size && t.endsWithNewline;
      const needsNewline = current > 0 && !knownClean && !(await this.endsWithNewline(file, current));
      const chunk = (needsNewline ? '\n' : '') + lines.join('\n') + '\n';
      const handle = await open(file, 'a');
      try {
        await handle.write(chunk);
        if (this.fsyncPolicy === 'always') await handle.sync();
      } finally {
        await handle.close();
      }
      const added = Buffer.byteLength(chunk);
      t.size = t.size >= 0 && t.size === current ? current + added : -1;
      if (t.size < 0) t.size = (await stat(file)).size;
      t.endsWithNewline = true;
      t.persistedCount = session.messages.length;
      t.headerJson = newHeader;
      t.providerJson = newProvider;
      t.supersededBytes = superseded;
    });
  }

  /** Rewrites the session's file in the canonical layout (metadata, provider state, messages). */
  async compact(session: Session): Promise<void> {
    const file = this.pathFor(session.key);
    await this.lock(file, async () => {
      const t = this.tracking.get(session);
      if (!t) throw new SessionConflictError(session.key, `Session "${session.key}" was not loaded by this store`);
      const current = await stat(file).then((s) => s.size, () => -1);
      if (current >= 0 && t.size >= 0 && current !== t.size) {
        throw new SessionConflictError(session.key, `Session "${session.key}" was changed by another writer; reload it before compacting`);
      }
      await this.rewrite(session, t);
    });
  }

  private async endsWithNewline(file: string, size: number): Promise<boolean> {
    const handle = await open(file, 'r');
    try {
      const buffer = Buffer.alloc(1);
      await handle.read(buffer, 0, 1, size - 1);
      return buffer[0] === 0x0a;
    } finally {
      await handle.close();
    }
  }

  private async rewrite(session: Session, t: Tracking): Promise<void> {
    const lines = [JSON.stringify(headerRecord(session))];
    if (session.providerState !== null && session.providerState !== undefined) {
      lines.push(JSON.stringify(providerStateRecord(session.providerState)));
    }
    for (const message of session.messages) lines.push(JSON.stringify(message));
    const text = lines.join('\n') + '\n';
    const name = sessionFileName(session.key);
    if (t.skippedLines.length > 0) {
      // Lines the loader could not read are kept beside the file rather than dropped for good.
      await appendFile(`${t.file}.corrupt`, t.skippedLines.join('\n') + '\n');
      t.skippedLines = [];
    }
    const temp = join(this.dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await open(temp, 'wx');
    try {
      await handle.write(text);
      if (this.fsyncPolicy !== 'never') await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, t.file);
    if (this.fsyncPolicy !== 'never') await this.syncDir();
    await unlink(join(this.dir, legacySessionFileName(session.key))).catch(() => undefined);
    await this.removeStaleTemps(name);
    t.size = Buffer.byteLength(text);
    t.endsWithNewline = true;
    t.persistedCount = session.messages.length;
    t.structureVersion = session.structureVersion;
    t.headerJson = headerJson(session);
    t.providerJson = JSON.stringify(session.providerState ?? null);
    t.supersededBytes = 0;
  }

  private async syncDir(): Promise<void> {
    const handle = await open(this.dir, 'r');
    try {
      await handle.sync();
    } catch (error) {
      // Some platforms (Windows) cannot fsync a directory; the rename is still atomic there.
      if (!isErrno(error, 'EISDIR') && !isErrno(error, 'EPERM') && !isErrno(error, 'EINVAL')) throw error;
    } finally {
      await handle.close();
    }
  }

  private async removeStaleTemps(name: string): Promise<void> {
    // Temps from a writer killed mid-rewrite; we hold the lock, so none of them is in use.
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const entry of names) {
      if (entry.startsWith(`.${name}.`) && entry.endsWith('.tmp')) await unlink(join(this.dir, entry)).catch(() => undefined);
    }
    await removeAbandonedLockFiles(join(this.dir, `${name}.lock`));
  }

  /** Deletes the session file (and its legacy-named copy); returns whether one existed. */
  async delete(key: string): Promise<boolean> {
    const file = this.pathFor(key);
    return this.lock(file, async () => {
      let existed = false;
      for (const path of [file, join(this.dir, legacySessionFileName(key))]) {
        try {
          await unlink(path);
          existed = true;
        } catch (error) {
          if (!isErrno(error, 'ENOENT')) throw error;
        }
      }
      return existed;
    });
  }

  /** Keys of the stored sessions (file names that decode to a key), sorted. */
  async list(): Promise<string[]> {
    const names = await readdir(this.dir).catch((error: unknown) => {
      if (isErrno(error, 'ENOENT')) return [] as string[];
      throw error;
    });
    const keys = names.map(sessionKeyFromFileName).filter((k): k is string => k !== null);
    return [...new Set(keys)].sort();
  }
}
