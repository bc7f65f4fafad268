import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** What an entry reaches: its source files, the bare specifiers they import, and which use `require`/`createRequire`. */
export interface ReachableSources {
  files: string[];
  bare: Set<string>;
  createRequire: string[];
}

/**
 * Every TypeScript source file `entry` (relative to `root`, a package directory) reaches
 * through relative imports, static and dynamic (type-only imports skipped), with the bare
 * specifiers they name: what a bundler for a Worker, an edge function or a page must resolve.
 * Comments are ignored (a comment may name what the entry avoids).
 */
export function reachableSources(root: string, entry: string): ReachableSources {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const createRequire: string[] = [];
  const todo = [resolve(root, entry)];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    if (/createRequire|\brequire\(/.test(code)) createRequire.push(file);
    for (const m of code.matchAll(/(?:^|\s)(?:import|export)\s(?:type\s)?[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm)) {
      if (m[0].trimStart().startsWith('import type') || m[0].trimStart().startsWith('export type')) continue;
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith('.')) todo.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else bare.add(spec);
    }
  }
  return { files: [...seen], bare, createRequire };
}
