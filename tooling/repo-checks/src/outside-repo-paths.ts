import { dirname, resolve, sep } from 'node:path';

// A fresh clone has nothing beside it: a test or source that reads `../shared` (or any path
// above the repository) passes on a developer's machine and fails for everyone else.

/** Names of sibling folders that once held fixtures and design notes outside the repository. */
const FORBIDDEN_FRAGMENTS = [/(^|[/\\])shared[/\\](conformance|reference|design|transcripts)\b/, /^\/work\//];

/** Put on a line whose outside path is a deliberate probe that nothing reads. */
export const ALLOW_MARKER = 'repo-checks: outside path on purpose';

function isInside(root: string, target: string): boolean {
  return target === root || target.startsWith(root + sep);
}

/**
 * Paths in a source text that point outside `repoRoot`, as `"<literal>"` messages. Finds
 * relative string literals (`'../../shared/x'`), `join`/`resolve`/`URL` calls that climb from
 * `import.meta.dirname`, `__dirname` or `import.meta.url` with literal segments, and
 * hard-coded fragments of the old shared folder. Pure; `file` is the text's absolute path.
 */
export function pathsOutsideRepo(file: string, fullText: string, repoRoot: string): string[] {
  const found = new Set<string>();
  const base = dirname(file);
  // A deliberate traversal probe (input a guard must refuse, never read by the test) opts out per line.
  const text = fullText.split('\n').filter((line) => !line.includes(ALLOW_MARKER)).join('\n');
  for (const m of text.matchAll(/(['"`])((?:\.\.?\/)+[^'"`\s]*)\1/g)) {
    const literal = m[2]!;
    // Globs (lint patterns) name no file.
    if (literal.includes('*')) continue;
    if (!isInside(repoRoot, resolve(base, literal))) found.add(literal);
  }
  // join(import.meta.dirname, '..', '..', 'shared') and friends.
  const climb = /(?:import\.meta\.dirname|__dirname)\s*,((?:\s*(['"])[^'"]*\2\s*,?)+)/g;
  for (const m of text.matchAll(climb)) {
    const segments = [...m[1]!.matchAll(/(['"])([^'"]*)\1/g)].map((s) => s[2]!);
    const target = resolve(base, ...segments);
    if (!isInside(repoRoot, target)) found.add(segments.join('/'));
  }
  // new URL('../../../shared/', import.meta.url)
  for (const m of text.matchAll(/new URL\(\s*(['"])([^'"]+)\1\s*,\s*import\.meta\.url\s*\)/g)) {
    const literal = m[2]!;
    if (!isInside(repoRoot, resolve(base, literal))) found.add(literal);
  }
  for (const m of text.matchAll(/(['"`])([^'"`\n]*)\1/g)) {
    const literal = m[2]!;
    if (FORBIDDEN_FRAGMENTS.some((re) => re.test(literal))) found.add(literal);
  }
  return [...found];
}
