import { createHash, randomBytes } from 'node:crypto';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import type { Message } from '@nanobot/schema';
import { withFileLock, removeAbandonedLockFiles, type FileLockOptions } from './file-lock.js';
import { SessionConflictError, SessionStoreError, SessionWriteError } from './errors.js';
import { Session } from './session.js';
import type { SessionLoadResult, SessionStore } from './session-store.js';
import { nodeSessionFs, type SessionFileHandle, type SessionFs } from './session-fs.js';
import { hasRawNumbers, parseJson, stringifyJson } from './python-json.js';
import { headerRecord, parseSessionFile, providerStateRecord, type HeaderSlot, type SessionWarning } from './session-file-format.js';
import {
  legacySessionFileName,
  referenceSessionFileName,
  sessionFileName,
  sessionKeysFromFileName,
} from './session-file-name.js';

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
  /** Rewrite the file when superseded provider-state records exceed this many bytes and half the file. Default 64 KiB. */
  compactAfterBytes?: number;
  /**
   * Receives every load warning as well as returning it from `load` (called synchronously,
   * not awaited; must not throw; the warning object is shared, do not mutate it).
   */
  onWarning?: (key: string, warning: SessionWarning) => void;
  /** Clock for new sessions' timestamps. */
  now?: () => Date;
  /** File-system calls (default: `node:fs/promises`); tests inject failures here. */
  fs?: SessionFs;
  /**
   * How new files are named. `'readable'` (default): after the key, escaped only where a file
   * system needs it (`telegram%3a12345.jsonl`, see `sessionFileName`). `'reference'`: base64url
   * of the key, as the Python nanobot names them (`dGVsZWdyYW06MTIzNDU.jsonl`), for a directory
   * both share. Either way files under the other name (and the reference's legacy `:`→`_`
   * names) are read as they are, and moved to this name by their next rewrite.
   */
  fileNames?: 'readable' | 'reference';
}

/** What this store last saw of a file: it is the same file only if all of this still matches. */
interface FileIdentity {
  size: number;
  dev: number;
  ino: number;
  /** sha256 of the last {@link TAIL_BYTES} bytes (the whole file when smaller). */
  tail: string;
}

interface Probe {
  identity: FileIdentity;
  /** The file's first bytes (as many as asked for). */
  head: Buffer;
  /** The bytes `identity.tail` hashes. */
  tailBytes: Buffer;
}

interface Tracking {
  file: string;
  /** The older-named file the session was loaded from (removed once rewritten under `file`). */
  loadedFrom: string | null;
  persistedCount: number;
  structureVersion: number;
  /** Serialised metadata record as on disk, and the same without `updated_at`. */
  headerJson: string;
  headerCore: string;
  providerJson: string;
  /** null: no file yet (or only a legacy-named one). */
  identity: FileIdentity | null;
  /** The first line, when it is the only metadata record: updated in place while the new record fits. */
  slot: HeaderSlot | null;
  /** The bytes this store last read or wrote in the slot (to notice another writer's header). */
  slotBytes: Buffer | null;
  /** The file holds lines (or a header) this store never read: rewrites are refused until a reload. */
  foreign: boolean;
  /** Another writer changed the header: from now on only `updated_at` is merged into theirs. */
  headerForeign: boolean;
  supersededBytes: number;
  /** Bytes of lines skipped on load, kept aside in `<file>.corrupt` when the file is rewritten. */
  skippedLines: Uint8Array[];
  /** Lines kept byte-exact (not UTF-8) with the message's serialisation at load. */
  rawLines: WeakMap<Message, { raw: Uint8Array; json: string }>;
  endsWithNewline: boolean;
}

const TAIL_BYTES = 4096;
/** How much of the file's start is read to find another writer's first line. */
const HEAD_WINDOW = 16 * 1024;
const NEWLINE = Buffer.from('\n');

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

const errnoOf = (error: unknown): string =>
  typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : '';

const hash = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const serialise = (value: object): string => (hasRawNumbers(value) ? stringifyJson(value) : JSON.stringify(value));

function headerJsons(session: Session): { json: string; core: string } {
  const record = headerRecord(session);
  const json = stringifyJson(record);
  const { updated_at: _ignored, ...core } = record;
  return { json, core: stringifyJson(core) };
}

/** Room for the header to grow in place: generous while it stays within one 4 KiB page. */
function slotLength(headerLength: number): number {
  if (headerLength >= 4095) return headerLength + Math.ceil(headerLength / 4);
  return Math.min(4095, Math.max(headerLength + 256, Math.ceil(headerLength * 1.5)));
}

function padded(json: string, length: number): Buffer {
  const bytes = Buffer.from(json, 'utf8');
  // JSON allows trailing whitespace; every reader (ours, Python's json after strip()) ignores it.
  return bytes.length >= length ? bytes : Buffer.concat([bytes, Buffer.alloc(length - bytes.length, 0x20)]);
}

function writeErrorCode(error: unknown): string {
  const code = errnoOf(error);
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'SESSION_DISK_FULL';
  return code === 'SESSION_SHORT_WRITE' ? code : 'SESSION_IO_ERROR';
}

/**
 * The default session store: one JSONL file per session (metadata record first, then one
 * message per line), readable from and compatible with nanobot's session files.
 *
 * Saves append only new messages (and a provider-state record when it changed) and update the
 * first line — the metadata record, padded with spaces so it can grow — in place, so a save
 * costs O(new data) and the file always has the reference's one-header layout. The file is
 * rewritten atomically (temp file + fsync + rename + directory fsync) only when messages were
 * removed or replaced, when the header outgrew its room, or on `compact`. Every file access
 * holds the session's lock (see `withFileLock`). A rewrite refuses (`SessionConflictError`) when
 * the file holds anything this store has not read; every write is checked and rolled back on
 * failure (`SessionWriteError`). Corrupt lines are skipped with a warning on load and preserved in
 * `<file>.corrupt` when the file is rewritten; lines with invalid UTF-8 are kept byte-exact.
 */
export class JsonlSessionStore implements SessionStore {
  readonly dir: string;
  private readonly fsyncPolicy: FsyncPolicy;
  private readonly lockOptions: FileLockOptions;
  private readonly compactAfterBytes: number;
  private readonly onWarning: JsonlSessionStoreOptions['onWarning'];
  private readonly now: () => Date;
  private readonly fs: SessionFs;
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
    this.fs = options.fs ?? nodeSessionFs;
    this.fileName = options.fileNames === 'reference' ? referenceSessionFileName : sessionFileName;
  }

  /** Names this store writes (see `fileNames`). */
  private readonly fileName: (key: string) => string;

  /** Where a session may sit under an older or other name, in the order they are tried. */
  private otherNames(key: string): string[] {
    const names = [sessionFileName(key), referenceSessionFileName(key), legacySessionFileName(key)];
    const own = this.fileName(key);
    return names.filter((name, i) => name !== own && names.indexOf(name) === i);
  }

  /** Absolute path of the file holding `key`. */
  pathFor(key: string): string {
    if (typeof key !== 'string' || key === '') throw new SessionStoreError('SESSION_KEY_INVALID', 'A session key must be a non-empty string');
    return join(this.dir, this.fileName(key));
  }

  /**
   * The file that holds `key` now: its own name, or an older name it is still read from (see
   * `fileNames`); null when the session is not stored. Reads only.
   */
  async locate(key: string): Promise<string | null> {
    const own = this.pathFor(key);
    const found = await this.readWhole(own).catch(() => null);
    if (found !== null && belongsTo(parseSessionFile(found.bytes).key, basename(own), key)) return own;
    return (await this.readUnderOtherName(key))?.path ?? null;
  }

  /** The session's file under an older (or the other) name, read; null when there is none of its own. */
  private async readUnderOtherName(key: string): Promise<{ path: string; read: { bytes: Buffer; identity: FileIdentity }; parsed: ReturnType<typeof parseSessionFile> } | null> {
    for (const name of this.otherNames(key)) {
      const path = join(this.dir, name);
      const read = await this.readWhole(path).catch(() => null);
      if (read === null) continue;
      const parsed = parseSessionFile(read.bytes);
      // Another key's file may carry this name (`cli_direct.jsonl` is also the legacy name of `cli:direct`).
      if (belongsTo(parsed.key, name, key)) return { path, read, parsed };
    }
    return null;
  }

  private lock<T>(file: string, fn: () => Promise<T>): Promise<T> {
    return withFileLock(`${file}.lock`, fn, this.lockOptions);
  }

  /** Loads a session (or a fresh one); corrupt lines are skipped and reported, never fatal. */
  async load(key: string): Promise<SessionLoadResult> {
    const file = this.pathFor(key);
    await this.fs.mkdir(this.dir);
    return this.lock(file, async () => {
      let read = await this.readWhole(file);
      let parsed = read === null ? null : parseSessionFile(read.bytes);
      if (parsed !== null && parsed.key !== null && parsed.key !== key) {
        // Another key's file under an older name that is also this key's name (the base64url name
        // of `j` is the readable name of `ag`): it moves to its own name, so both sessions live on.
        const theirs = join(this.dir, this.fileName(parsed.key));
        if (!sessionKeysFromFileName(this.fileName(key)).includes(parsed.key) || (await this.readWhole(theirs)) !== null) {
          throw new SessionStoreError('SESSION_NAME_TAKEN', `${file} holds session "${parsed.key}", not "${key}"; move it aside to use "${key}"`);
        }
        await this.fs.rename(file, theirs);
        read = null;
        parsed = null;
      }
      let loadedFrom: string | null = null;
      if (read === null) {
        // Read as it is under an older name; only a rewrite moves it to this store's name.
        const other = await this.readUnderOtherName(key);
        if (other !== null) ({ read, parsed, path: loadedFrom } = other);
      }
      if (read === null || parsed === null) {
        const session = new Session({ key }, this.now);
        this.tracking.set(session, this.freshTracking(file));
        return { session, warnings: [], created: true };
      }
      const legacy = loadedFrom !== null;
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
      const header = headerJsons(session);
      const rawLines = new WeakMap<Message, { raw: Uint8Array; json: string }>();
      for (const [message, raw] of parsed.rawMessageLines) rawLines.set(message, { raw, json: serialise(message) });
      this.tracking.set(session, {
        file,
        loadedFrom,
        persistedCount: legacy ? 0 : session.messages.length,
        // A file under another name is rewritten under this store's name on the first save.
        structureVersion: legacy ? -1 : session.structureVersion,
        headerJson: legacy ? '' : header.json,
        headerCore: legacy ? '' : header.core,
        providerJson: legacy ? 'null' : JSON.stringify(session.providerState ?? null),
        identity: legacy ? null : read.identity,
        slot: legacy ? null : parsed.headerSlot,
        slotBytes: legacy || !parsed.headerSlot ? null : Buffer.from(read.bytes.subarray(0, parsed.headerSlot.length)),
        foreign: false,
        headerForeign: false,
        supersededBytes: parsed.supersededBytes,
        skippedLines: parsed.skippedBytes,
        rawLines,
        endsWithNewline: parsed.endsWithNewline,
      });
      for (const warning of parsed.warnings) this.onWarning?.(key, warning);
      return { session, warnings: parsed.warnings, created: false };
    });
  }

  private freshTracking(file: string): Tracking {
    return {
      file,
      loadedFrom: null,
      persistedCount: 0,
      structureVersion: Number.NaN, // never equal: the first save writes the whole file
      headerJson: '',
      headerCore: '',
      providerJson: 'null',
      identity: null,
      slot: null,
      slotBytes: null,
      foreign: false,
      headerForeign: false,
      supersededBytes: 0,
      skippedLines: [],
      rawLines: new WeakMap(),
      endsWithNewline: true,
    };
  }

  private async readWhole(path: string): Promise<{ bytes: Buffer; identity: FileIdentity } | null> {
    let handle: SessionFileHandle;
    try {
      handle = await this.fs.open(path, 'r');
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return null;
      throw error;
    }
    try {
      const st = await handle.stat();
      const bytes = await handle.readFile();
      const tail = hash(bytes.subarray(Math.max(0, bytes.length - TAIL_BYTES)));
      return { bytes, identity: { size: bytes.length, dev: st.dev, ino: st.ino, tail } };
    } finally {
      await handle.close();
    }
  }

  /**
   * The file's identity now (size, inode, hash of its tail) and, when asked, its first `head` bytes,
   * remembering in `t` when anything differs from what this store last saw.
   */
  private async observe(t: Tracking, handle: SessionFileHandle | null): Promise<Probe | null> {
    if (!handle) return null;
    let now = await this.probeHandle(handle, t.slot ? t.slot.length + 1 : 0);
    if (!sameFile(t.identity, now.identity)) t.foreign = true;
    if (t.slot && t.slotBytes && !(now.head.length > t.slot.length && now.head[t.slot.length] === 0x0a && now.head.subarray(0, t.slot.length).equals(t.slotBytes))) {
      t.foreign = true;
      t.headerForeign = true;
    }
    // Another writer's first line may be longer than ours: look further to find its end.
    if (t.headerForeign && t.slot && t.slot.length + 1 < HEAD_WINDOW) now = await this.probeHandle(handle, HEAD_WINDOW);
    return now;
  }

  /** Opens `file` (null when it does not exist). */
  private async openIfExists(file: string, flags: 'r' | 'r+'): Promise<SessionFileHandle | null> {
    try {
      return await this.fs.open(file, flags);
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return null;
      throw error;
    }
  }

  private async probeHandle(handle: SessionFileHandle, head = 0): Promise<Probe> {
    const st = await handle.stat();
    const tailLength = Math.min(st.size, TAIL_BYTES);
    const tail = await readAt(handle, st.size - tailLength, tailLength);
    const first = head > 0 ? await readAt(handle, 0, Math.min(head, st.size)) : Buffer.alloc(0);
    return { identity: { size: st.size, dev: st.dev, ino: st.ino, tail: hash(tail) }, head: first, tailBytes: tail };
  }

  /**
   * Persists changes since the last load/save: appends new messages (and a provider-state
   * record when it changed) and updates the metadata record in place. Rewrites the file
   * atomically when messages were removed/replaced. Throws SessionConflictError (nothing
   * written) when the change cannot be applied without dropping or overriding what another
   * writer stored, SessionWriteError (nothing kept) when the disk refuses the write, and
   * SessionLockError when the lock cannot be taken.
   */
  async save(session: Session): Promise<void> {
    const file = this.pathFor(session.key);
    await this.fs.mkdir(this.dir);
    await this.lock(file, async () => {
      // One handle for the whole save: probe, append and header write.
      const handle = await this.openIfExists(file, 'r+');
      try {
        await this.saveLocked(session, file, handle);
      } finally {
        await handle?.close();
      }
    });
  }

  private async saveLocked(session: Session, file: string, handle: SessionFileHandle | null): Promise<void> {
    {
      let t = this.tracking.get(session);
      if (!t) {
        if (handle) throw new SessionConflictError(session.key, `Session "${session.key}" is already stored; load it before saving`);
        t = this.freshTracking(file);
        this.tracking.set(session, t);
      }
      const now = await this.observe(t, handle);
      const structural = t.structureVersion !== session.structureVersion || session.messages.length < t.persistedCount;
      if (!handle || !now || structural) {
        if (now && t.foreign) throw this.conflict(session, 'rewriting it');
        await this.rewrite(session, t);
        return;
      }

      const lines: string[] = [];
      for (let i = t.persistedCount; i < session.messages.length; i += 1) lines.push(serialise(session.messages[i]));
      const provider = JSON.stringify(session.providerState ?? null);
      let superseded = t.supersededBytes;
      if (provider !== t.providerJson) {
        const line = serialise(providerStateRecord(session.providerState ?? null));
        lines.push(line);
        if (t.providerJson !== 'null') superseded += Buffer.byteLength(line) + 1; // approximate: the previous record is dead weight
      }
      const header = headerJsons(session);
      const headerChanged = header.json !== t.headerJson;
      if (lines.length === 0 && !headerChanged) return;

      // Decide everything before writing anything: a refused save leaves the file untouched.
      let headerBytes: Buffer | null = null;
      let headerOwned = false;
      if (headerChanged) {
        const coreChanged = header.core !== t.headerCore;
        if (!t.slot) {
          if (t.foreign) throw this.conflict(session, 'updating its metadata');
          await this.rewrite(session, t);
          return;
        }
        const theirs = t.headerForeign ? theirHeader(now.head) : null;
        const room = theirs ? theirs.length : t.slot.length;
        if (t.headerForeign && (!theirs || theirs.core !== t.headerCore)) {
          // Another writer changed the header beyond `updated_at`: only a newer `updated_at` may be merged into theirs.
          if (coreChanged) throw this.conflict(session, 'updating its metadata');
          const json = theirs && theirs.updatedAt < session.updatedAt ? stringifyJson({ ...theirs.record, updated_at: session.updatedAt }) : null;
          headerBytes = json !== null && Buffer.byteLength(json) <= room ? padded(json, room) : null;
        } else if (coreChanged && t.foreign && lastConsolidatedChanged(header.core, t.headerCore)) {
          // The pointer counts messages in file order; another writer's lines make ours mean something else.
          throw this.conflict(session, 'moving its consolidation pointer');
        } else if (Buffer.byteLength(header.json) <= room) {
          // Theirs (if any) differs only in `updated_at`: ours wins, keeping the newer time.
          const json = theirs && theirs.updatedAt > session.updatedAt ? stringifyJson({ ...headerRecord(session), updated_at: theirs.updatedAt }) : header.json;
          headerBytes = padded(json, room);
          headerOwned = true;
        } else {
          if (t.foreign) throw this.conflict(session, 'growing its metadata');
          await this.rewrite(session, t);
          return;
        }
      }
      if (superseded > this.compactAfterBytes && superseded * 2 > now.identity.size && !t.foreign) {
        await this.rewrite(session, t);
        return;
      }

      const needsNewline = now.identity.size > 0 && !(t.endsWithNewline && !t.foreign) && now.tailBytes[now.tailBytes.length - 1] !== 0x0a;
      const chunk = lines.length > 0 ? Buffer.from((needsNewline ? '\n' : '') + lines.join('\n') + '\n', 'utf8') : Buffer.alloc(0);
      if (chunk.length === 0 && !headerBytes) return;
      const oldHead = headerBytes ? now.head.subarray(0, headerBytes.length) : Buffer.alloc(0);
      const pointerMoved = headerBytes !== null && lastConsolidatedChanged(header.core, t.headerCore);
      const identity = await this.appendAndUpdateHeader(handle, session, t, now, chunk, headerBytes, oldHead, pointerMoved);
      t.identity = identity;
      t.endsWithNewline = true;
      t.persistedCount = session.messages.length;
      t.headerJson = header.json;
      t.headerCore = header.core;
      if (headerBytes && headerOwned) {
        t.slot = { length: headerBytes.length };
        t.slotBytes = headerBytes;
        t.headerForeign = false;
      }
      t.providerJson = provider;
      t.supersededBytes = superseded;
    }
  }

  private conflict(session: Session, doing: string): SessionConflictError {
    return new SessionConflictError(
      session.key,
      `Session "${session.key}" was changed by another writer since this store read it; reload it before ${doing} (nothing was written)`,
    );
  }

  /** Appends `chunk` at `before.size`, then writes the header; any failure restores the file. */
  private async appendAndUpdateHeader(
    handle: SessionFileHandle,
    session: Session,
    t: Tracking,
    before: Probe,
    chunk: Buffer,
    header: Buffer | null,
    oldHead: Buffer,
    pointerMoved: boolean,
  ): Promise<FileIdentity> {
    const size = before.identity.size;
    let appended = false;
    let headerWritten = false;
    try {
      if (chunk.length > 0) {
        appended = true;
        await writeFully(handle, chunk, size);
        // A moved pointer must never be durable before the messages it counts (rare: consolidation).
        if (header && pointerMoved && this.fsyncPolicy !== 'never') await handle.sync();
      }
      if (header) {
        headerWritten = true;
        await writeFully(handle, header, 0);
      }
      if (this.fsyncPolicy === 'always') await handle.sync();
    } catch (error) {
      const rolledBack = await rollback(handle, size, appended, headerWritten ? oldHead : null);
      throw new SessionWriteError(
        writeErrorCode(error),
        session.key,
        t.file,
        `Could not write session "${session.key}" (${errnoOf(error) || (error as Error).message}); ` +
          (rolledBack ? 'the file was restored, nothing of this save was kept' : 'the file could not be restored; reload the session'),
        { cause: error, rolledBack },
      );
    }
    // Another process may have renamed a new file over ours meanwhile (one that ignores our lock).
    const current = await this.fs.stat(t.file).catch(() => null);
    if (!current || current.ino !== before.identity.ino || current.dev !== before.identity.dev) {
      throw new SessionConflictError(session.key, `Session "${session.key}" was replaced while saving; reload it (this save is not stored)`);
    }
    // The new tail, from the old one plus what we wrote (no read-back needed).
    const newSize = size + chunk.length;
    const window = Buffer.concat([before.tailBytes, chunk]);
    const tail = window.subarray(Math.max(0, window.length - TAIL_BYTES));
    const windowStart = newSize - tail.length;
    if (header && windowStart < header.length) header.copy(tail, 0, windowStart, Math.min(header.length, windowStart + tail.length));
    return { size: newSize, dev: before.identity.dev, ino: before.identity.ino, tail: hash(tail) };
  }

  /**
   * Rewrites the session's file in the canonical layout (metadata, provider state, messages).
   * Refuses with SessionConflictError when the file holds anything this store has not read.
   */
  async compact(session: Session): Promise<void> {
    const file = this.pathFor(session.key);
    await this.lock(file, async () => {
      const t = this.tracking.get(session);
      if (!t) throw new SessionConflictError(session.key, `Session "${session.key}" was not loaded by this store`);
      const handle = await this.openIfExists(file, 'r');
      try {
        const now = await this.observe(t, handle);
        if (now && t.foreign) throw this.conflict(session, 'compacting it');
      } finally {
        await handle?.close();
      }
      await this.rewrite(session, t);
    });
  }

  private async rewrite(session: Session, t: Tracking): Promise<void> {
    const header = headerJsons(session);
    const slot = { length: slotLength(Buffer.byteLength(header.json)) };
    const headerBytes = padded(header.json, slot.length);
    const parts: Uint8Array[] = [headerBytes, NEWLINE];
    if (session.providerState !== null && session.providerState !== undefined) {
      parts.push(Buffer.from(serialise(providerStateRecord(session.providerState))), NEWLINE);
    }
    for (const message of session.messages) {
      const json = serialise(message);
      const kept = t.rawLines.get(message);
      parts.push(kept && kept.json === json ? kept.raw : Buffer.from(json, 'utf8'), NEWLINE);
    }
    const bytes = Buffer.concat(parts);
    const name = this.fileName(session.key);
    const fail = (error: unknown, what: string): SessionWriteError =>
      new SessionWriteError(writeErrorCode(error), session.key, t.file, `Could not ${what} for session "${session.key}" (${errnoOf(error) || (error as Error).message}); the file is unchanged`, {
        cause: error,
      });
    if (t.skippedLines.length > 0) {
      // Lines the loader could not read are kept beside the file rather than dropped for good.
      const aside = Buffer.concat(t.skippedLines.flatMap((line) => [line, NEWLINE]));
      await this.fs.appendFile(`${t.file}.corrupt`, aside).catch((error: unknown) => {
        throw fail(error, 'keep skipped lines in .corrupt');
      });
      t.skippedLines = [];
    }
    const temp = join(this.dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await this.fs.open(temp, 'wx');
    let identity: FileIdentity;
    try {
      try {
        await writeFully(handle, bytes, 0);
        if (this.fsyncPolicy !== 'never') await handle.sync();
      } catch (error) {
        throw fail(error, 'write the rewritten file');
      }
      const st = await handle.stat();
      identity = { size: bytes.length, dev: st.dev, ino: st.ino, tail: hash(bytes.subarray(Math.max(0, bytes.length - TAIL_BYTES))) };
    } catch (error) {
      await handle.close().catch(() => undefined);
      await this.fs.unlink(temp).catch(() => undefined);
      throw error;
    }
    await handle.close();
    await this.fs.rename(temp, t.file);
    if (this.fsyncPolicy !== 'never') await this.syncDir();
    if (t.loadedFrom !== null && t.loadedFrom !== t.file) await this.fs.unlink(t.loadedFrom).catch(() => undefined);
    t.loadedFrom = null;
    await this.removeStaleTemps(name);
    t.identity = identity;
    t.slot = slot;
    t.slotBytes = headerBytes;
    t.foreign = false;
    t.headerForeign = false;
    t.endsWithNewline = true;
    t.persistedCount = session.messages.length;
    t.structureVersion = session.structureVersion;
    t.headerJson = header.json;
    t.headerCore = header.core;
    t.providerJson = JSON.stringify(session.providerState ?? null);
    t.supersededBytes = 0;
  }

  private async syncDir(): Promise<void> {
    const handle = await this.fs.open(this.dir, 'r');
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
    const names = await this.fs.readdir(this.dir).catch(() => [] as string[]);
    for (const entry of names) {
      if (entry.startsWith(`.${name}.`) && entry.endsWith('.tmp')) await this.fs.unlink(join(this.dir, entry)).catch(() => undefined);
    }
    await removeAbandonedLockFiles(join(this.dir, `${name}.lock`));
  }

  /** Deletes the session's file (and its copies under older names); returns whether one existed. */
  async delete(key: string): Promise<boolean> {
    const file = this.pathFor(key);
    return this.lock(file, async () => {
      let existed = false;
      for (const name of [this.fileName(key), ...this.otherNames(key)]) {
        const path = join(this.dir, name);
        // Only this key's files: a name can also be another key's (see `belongsTo`).
        if (path !== file) {
          const found = await this.readWhole(path).catch(() => null);
          if (found === null || !belongsTo(parseSessionFile(found.bytes).key, name, key)) continue;
        }
        try {
          await this.fs.unlink(path);
          existed = true;
        } catch (error) {
          if (!isErrno(error, 'ENOENT')) throw error;
        }
      }
      return existed;
    });
  }

  /**
   * Keys of the stored sessions, sorted: readable and reference (base64url) file names decode to
   * their key; a hashed name, a legacy `:`→`_` name, or one that could stand for two keys, is
   * settled by the key in the file's metadata record.
   */
  async list(): Promise<string[]> {
    const names = await this.fs.readdir(this.dir).catch((error: unknown) => {
      if (isErrno(error, 'ENOENT')) return [] as string[];
      throw error;
    });
    const keys = new Set<string>();
    for (const name of names) {
      const candidates = sessionKeysFromFileName(name);
      if (candidates.length === 1) {
        keys.add(candidates[0]);
        continue;
      }
      if (!name.endsWith('.jsonl') || name.startsWith('.')) continue;
      const stored = await this.readHeaderKey(join(this.dir, name));
      if (stored !== null && (candidates.includes(stored) || sessionFileName(stored) === name || legacySessionFileName(stored) === name)) keys.add(stored);
      else if (candidates.length > 0) keys.add(candidates[0]);
    }
    return [...keys].sort();
  }

  /** The key in a file's metadata record (null: unreadable, or no key there). */
  private async readHeaderKey(path: string): Promise<string | null> {
    const found = await this.readWhole(path).catch(() => null);
    return found === null ? null : parseSessionFile(found.bytes).key;
  }
}

/**
 * Whether the file `name`, whose metadata record names `stored` (null: no key recorded), holds
 * the session `key`: its recorded key decides; without one, only a name that cannot be another
 * key's readable name is taken (an old `cli_direct.jsonl` is also the readable name of `cli_direct`).
 */
function belongsTo(stored: string | null, name: string, key: string): boolean {
  if (stored !== null) return stored === key;
  return sessionKeysFromFileName(name).every((k) => k === key);
}

function sameFile(known: FileIdentity | null, now: FileIdentity): boolean {
  return known !== null && known.size === now.size && known.ino === now.ino && known.dev === now.dev && known.tail === now.tail;
}

function lastConsolidatedChanged(core: string, knownCore: string): boolean {
  const pointer = (json: string): unknown => (JSON.parse(json) as { last_consolidated?: unknown }).last_consolidated;
  try {
    return pointer(core) !== pointer(knownCore);
  } catch {
    return true;
  }
}

/** The first line another writer left (when it is a metadata record), with its length in bytes. */
function theirHeader(head: Buffer): { record: Record<string, unknown>; core: string; updatedAt: string; length: number } | null {
  const length = head.indexOf(0x0a);
  if (length < 0) return null;
  try {
    const record = parseJson(head.subarray(0, length).toString('utf8')) as Record<string, unknown>;
    if (record === null || typeof record !== 'object' || record._type !== 'metadata') return null;
    const { updated_at: updatedAt, ...core } = record;
    return { record, core: stringifyJson(core), updatedAt: typeof updatedAt === 'string' ? updatedAt : '', length };
  } catch {
    return null;
  }
}

async function readAt(handle: SessionFileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, position + done);
    if (bytesRead <= 0) break;
    done += bytesRead;
  }
  return buffer.subarray(0, done);
}

/** Writes all of `bytes` at `position`, looping over short writes; throws when no progress is made. */
async function writeFully(handle: SessionFileHandle, bytes: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    if (bytesWritten <= 0) {
      throw Object.assign(new Error(`short write: ${done} of ${bytes.length} bytes`), { code: 'SESSION_SHORT_WRITE' });
    }
    done += bytesWritten;
  }
}

/** Cuts the file back to `size` and puts the old header back; whether it worked. */
async function rollback(handle: SessionFileHandle, size: number, appended: boolean, oldHead: Buffer | null): Promise<boolean> {
  try {
    if (oldHead && oldHead.length > 0) await writeFully(handle, oldHead, 0);
    if (appended) await handle.truncate(size);
    await handle.sync().catch(() => undefined);
    return true;
  } catch {
    return false;
  }
}
