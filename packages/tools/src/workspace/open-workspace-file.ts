import { constants, type Stats } from 'node:fs';
import { open, readlink, realpath, stat, unlink, type FileHandle } from 'node:fs/promises';
import { allowedRoots, isInside, workspaceViolation } from './resolve-workspace-path.js';
import type { WorkspaceScope } from './workspace-scope.js';

/** What `openWorkspaceFile` hands back: the open handle and the stats of what was opened. */
export interface OpenedFile {
  readonly handle: FileHandle;
  readonly stats: Stats;
}

/**
 * Where the kernel says an open descriptor points. Linux exposes it in /proc; elsewhere we
 * fall back to comparing device and inode with the path's real target.
 */
async function descriptorPath(handle: FileHandle, path: string, stats: Stats): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    try {
      const real = await realpath(path);
      const again = await stat(real);
      return again.dev === stats.dev && again.ino === stats.ino ? real : undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * Opens a path already vetted by `resolveWorkspacePath`, closing the check-then-open race:
 * `O_NOFOLLOW` refuses a final component that became a symlink, and after opening we ask the
 * kernel which file the descriptor really refers to (/proc/self/fd, else dev+inode) and refuse
 * unless it lies inside the allowed roots — this also catches a parent directory swapped for a
 * symlink. Writes open without truncation and truncate only after the check, and a file this
 * call created outside is removed again, so a lost race never damages anything outside.
 * Throws `WorkspaceViolationError` on a refusal, or the file system's error.
 */
export async function openWorkspaceFile(
  scope: WorkspaceScope,
  realPath: string,
  displayPath: string,
  mode: 'read' | 'write',
): Promise<OpenedFile> {
  const nofollow = scope.restrict ? constants.O_NOFOLLOW : 0;
  let handle: FileHandle;
  let created = false;
  try {
    if (mode === 'read') {
      // O_NONBLOCK: opening a FIFO must not hang the tool; it is rejected as "not a file" below.
      handle = await open(realPath, constants.O_RDONLY | constants.O_NONBLOCK | nofollow);
    } else {
      try {
        handle = await open(realPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | nofollow, 0o644);
        created = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        handle = await open(realPath, constants.O_WRONLY | constants.O_NONBLOCK | nofollow);
      }
    }
  } catch (error) {
    if (scope.restrict && (error as NodeJS.ErrnoException).code === 'ELOOP') throw workspaceViolation(displayPath, scope);
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (scope.restrict) {
      const actual = await descriptorPath(handle, realPath, stats);
      const roots = await allowedRoots(scope, mode);
      if (actual === undefined || !roots.some((r) => isInside(actual, r))) {
        if (created && actual !== undefined) await unlink(actual).catch(() => undefined);
        throw workspaceViolation(displayPath, scope);
      }
    }
    return { handle, stats };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}
