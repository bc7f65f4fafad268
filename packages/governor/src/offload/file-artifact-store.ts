import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { safeFilename, ValidationError } from '@nanobot/schema';
import { TOOL_RESULT_MAX_BUCKETS, TOOL_RESULT_RETENTION_SECONDS, TOOL_RESULTS_DIR } from '../constants.js';
import type { ArtifactRequest, ArtifactStore } from './artifact-store.js';

/** Options of {@link FileArtifactStore}. */
export interface FileArtifactStoreOptions {
  /** The agent workspace; results go to `<workspace>/.nanobot/tool-results/<session>/`. */
  workspace: string;
  /** Clock in milliseconds (tests); defaults to `Date.now`. Must not throw. */
  now?: () => number;
}

function atomicWrite(path: string, body: string): void {
  const dir = dirname(path);
  const tmp = join(dir, `.${path.slice(dir.length + 1)}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, body, null, 'utf8');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (error) {
    try { unlinkSync(tmp); } catch { /* the rename error is the one worth reporting */ }
    throw error;
  }
  try {
    const dfd = openSync(dir, 'r');
    try { fsyncSync(dfd); } finally { closeSync(dfd); }
  } catch {
    // Directory fsync is not supported everywhere (e.g. Windows); the rename already happened.
  }
}

/**
 * An {@link ArtifactStore} on disk, laid out as the reference does:
 * `<workspace>/.nanobot/tool-results/<safe(session)>/<safe(id)>.<txt|json>`, written atomically
 * (temp file, fsync, rename, directory fsync). Buckets untouched for 7 days are deleted and at
 * most 32 are kept. Unlike the reference, an existing file with a different body is never
 * reused: the new result goes to `<id>-<sha256 prefix>.<ext>`, so a reused tool-call id cannot
 * show the model a stale file.
 */
export class FileArtifactStore implements ArtifactStore {
  readonly #workspace: string;
  readonly #now: () => number;
  // Bodies already verified on disk, so a warm history costs no file reads.
  readonly #verified = new Map<string, string>();

  /** Throws {@link ValidationError} unless `workspace` is a non-empty string. */
  constructor(options: FileArtifactStoreOptions) {
    if (typeof options?.workspace !== 'string' || options.workspace === '') {
      throw new ValidationError('FileArtifactStore: options.workspace must be a non-empty path', ['workspace']);
    }
    if (options.now !== undefined && typeof options.now !== 'function') {
      throw new ValidationError('FileArtifactStore: options.now must be a function', ['now']);
    }
    this.#workspace = options.workspace;
    this.#now = options.now ?? Date.now;
  }

  /** Saves the body (sync) and returns its path; throws on I/O errors. */
  persist(request: ArtifactRequest): string {
    const root = join(this.#workspace, TOOL_RESULTS_DIR);
    const bucketName = safeFilename(request.sessionKey || 'default');
    const bucket = join(root, bucketName);
    const plain = `${join(bucket, safeFilename(request.toolCallId))}.${request.extension}`;
    // Warm path: a result already verified on disk costs one stat, no directory scan.
    if (this.#verified.get(plain) === request.body && existsSync(plain)) return plain;
    mkdirSync(bucket, { recursive: true });
    this.#cleanup(root, bucketName);
    const base = join(bucket, safeFilename(request.toolCallId));
    let path = `${base}.${request.extension}`;
    if (!this.#holds(path, request.body)) {
      if (existsSync(path)) {
        const hash = createHash('sha256').update(request.body).digest('hex').slice(0, 12);
        path = `${base}-${hash}.${request.extension}`;
        if (!this.#holds(path, request.body)) atomicWrite(path, request.body);
      } else {
        atomicWrite(path, request.body);
      }
      this.#remember(path, request.body);
    }
    return path;
  }

  /** Reads a saved result back, or `undefined` when the file does not exist. */
  read(location: string): string | undefined {
    try {
      return readFileSync(location, 'utf8');
    } catch {
      return undefined;
    }
  }

  #holds(path: string, body: string): boolean {
    if (this.#verified.get(path) === body) return existsSync(path);
    try {
      const ok = statSync(path).size === Buffer.byteLength(body) && readFileSync(path, 'utf8') === body;
      if (ok) this.#remember(path, body);
      return ok;
    } catch {
      return false;
    }
  }

  #remember(path: string, body: string): void {
    if (this.#verified.size >= 4096) this.#verified.delete(this.#verified.keys().next().value!);
    this.#verified.set(path, body);
  }

  #cleanup(root: string, current: string): void {
    let entries: { name: string; mtime: number }[];
    try {
      entries = readdirSync(root, { withFileTypes: true })
        .filter((e) => e.isDirectory() && e.name !== current)
        .map((e) => ({ name: e.name, mtime: statSync(join(root, e.name)).mtimeMs }));
    } catch {
      return;
    }
    const cutoff = this.#now() - TOOL_RESULT_RETENTION_SECONDS * 1000;
    const fresh: typeof entries = [];
    for (const e of entries) {
      if (e.mtime < cutoff) rmSync(join(root, e.name), { recursive: true, force: true });
      else fresh.push(e);
    }
    fresh.sort((a, b) => b.mtime - a.mtime);
    for (const e of fresh.slice(TOOL_RESULT_MAX_BUCKETS - 1)) rmSync(join(root, e.name), { recursive: true, force: true });
  }
}
