import { constants, type Dir, type Dirent } from 'node:fs';
import { lstat, open, opendir, readlink, realpath, stat } from 'node:fs/promises';
import { DirectoryOutsideError } from './directory-outside-error.js';
import { isInside } from './resolve-workspace-path.js';

/** A directory opened by descriptor and proved to lie inside the allowed roots. */
export interface VerifiedDir {
  /** Where the kernel says the directory is. */
  readonly realPath: string;
  /** Its entries, read through the verified descriptor (never by re-resolving the path). */
  readonly entries: readonly Dirent[];
}

async function readAll(dir: Dir): Promise<Dirent[]> {
  const out: Dirent[] = [];
  try {
    for (let d = await dir.read(); d !== null; d = await dir.read()) out.push(d);
  } finally {
    await dir.close().catch(() => undefined);
  }
  return out;
}

/**
 * Opens `path` as a directory with `O_NOFOLLOW` (a last component swapped for a symlink fails
 * → refused), asks the kernel where the descriptor points (`/proc/self/fd/N`) and
 * refuses unless that is inside `roots` (a parent swapped for a symlink is caught here), then
 * lists it through that same descriptor (`opendir('/proc/self/fd/N')` re-opens the open
 * directory, not the path). Without /proc (macOS) the path's real target is compared by
 * device and inode before and after reading, which narrows but cannot close the race.
 * `roots` undefined = unconfined (no checks, symlinks followed as before). Throws
 * `DirectoryOutsideError` on a refusal, else the file system's error (ENOENT, ENOTDIR, …).
 */
export async function openVerifiedDir(path: string, roots: readonly string[] | undefined): Promise<VerifiedDir> {
  if (!roots) return { realPath: path, entries: await readAll(await opendir(path)) };
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Linux answers O_DIRECTORY|O_NOFOLLOW on a symlink with ENOTDIR, others with ELOOP.
    if (code === 'ELOOP') throw new DirectoryOutsideError(path);
    if (code === 'ENOTDIR' && (await lstat(path).then((s) => s.isSymbolicLink(), () => false))) throw new DirectoryOutsideError(path);
    throw error;
  }
  try {
    const fdPath = `/proc/self/fd/${handle.fd}`;
    let real: string | undefined;
    try {
      real = await readlink(fdPath);
    } catch {
      real = undefined;
    }
    if (real !== undefined) {
      if (!roots.some((r) => isInside(real, r))) throw new DirectoryOutsideError(path);
      return { realPath: real, entries: await readAll(await opendir(fdPath)) };
    }
    // No /proc: identify by device and inode before and after the read.
    const held = await handle.stat();
    const resolved = await realpath(path);
    const same = async () => {
      const now = await stat(resolved);
      return now.dev === held.dev && now.ino === held.ino;
    };
    if (!roots.some((r) => isInside(resolved, r)) || !(await same())) throw new DirectoryOutsideError(path);
    const entries = await readAll(await opendir(resolved));
    if (!(await same())) throw new DirectoryOutsideError(path);
    return { realPath: resolved, entries };
  } finally {
    await handle.close().catch(() => undefined);
  }
}
