import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import { openVerifiedDir } from '../workspace/open-verified-dir.js';

/** Directories every listing and search skips, as the reference does. */
export const IGNORED_DIRS: ReadonlySet<string> = new Set([
  '.git', 'node_modules', '__pycache__', '.venv', 'venv', 'dist', 'build', '.tox', '.mypy_cache',
  '.pytest_cache', '.ruff_cache', '.coverage', 'htmlcov',
]);

/** One entry met while walking; symlinks are reported, never followed. */
export interface WalkEntry {
  readonly path: string;
  /** Relative to the walk's root, with `/` separators. */
  readonly rel: string;
  readonly kind: 'file' | 'dir' | 'symlink' | 'other';
}

function kindOf(d: Dirent): WalkEntry['kind'] {
  if (d.isSymbolicLink()) return 'symlink';
  if (d.isDirectory()) return 'dir';
  if (d.isFile()) return 'file';
  return 'other';
}

/**
 * Depth-first walk in name order. Every directory is opened by descriptor and verified inside
 * `roots` before it is read (`openVerifiedDir`), so a directory swapped for a symlink mid-walk
 * lists nothing from outside; symbolic links are yielded but never descended into. The root
 * failing that check throws `DirectoryOutsideError` (or the file system's error); a nested
 * directory failing it, or unreadable, is skipped. `roots` undefined = unconfined. Stops early
 * when the consumer stops iterating.
 */
export async function* walkTree(
  root: string,
  recursive: boolean,
  signal?: AbortSignal,
  roots?: readonly string[],
): AsyncGenerator<WalkEntry> {
  const stack: { path: string; rel: string }[] = [{ path: root, rel: '' }];
  let first = true;
  while (stack.length > 0) {
    if (signal?.aborted) return;
    const dir = stack.pop()!;
    let entries: readonly Dirent[];
    let realDir: string;
    try {
      const opened = await openVerifiedDir(dir.path, roots);
      entries = opened.entries;
      realDir = opened.realPath;
    } catch (error) {
      if (first) throw error;
      continue;
    } finally {
      first = false;
    }
    const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: { path: string; rel: string }[] = [];
    for (const d of sorted) {
      const kind = kindOf(d);
      if (kind === 'dir' && IGNORED_DIRS.has(d.name)) continue;
      // Children are named from the verified location, not from the path we were given.
      const path = join(realDir, d.name);
      const rel = dir.rel ? `${dir.rel}/${d.name}` : d.name;
      yield { path, rel, kind };
      if (recursive && kind === 'dir') subdirs.push({ path, rel });
    }
    // Reverse so the stack pops directories in name order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]);
  }
}
