import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

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
 * Depth-first walk in name order. Symbolic links are yielded but never descended into, so a
 * link pointing out of the workspace cannot widen a listing or a search. Unreadable
 * directories are skipped. Stops early when the consumer stops iterating.
 */
export async function* walkTree(root: string, recursive: boolean, signal?: AbortSignal): AsyncGenerator<WalkEntry> {
  const stack: string[] = [root];
  while (stack.length > 0) {
    if (signal?.aborted) return;
    const dir = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const d of entries) {
      const kind = kindOf(d);
      if (kind === 'dir' && IGNORED_DIRS.has(d.name)) continue;
      const path = join(dir, d.name);
      yield { path, rel: relative(root, path).split('\\').join('/'), kind };
      if (recursive && kind === 'dir') subdirs.push(path);
    }
    // Reverse so the stack pops directories in name order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]);
  }
}
