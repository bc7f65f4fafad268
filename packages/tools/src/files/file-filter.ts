import picomatch from 'picomatch';

/** File types understood by `type` (ripgrep-style names); any other value is an extension. */
const TYPE_EXTENSIONS: Record<string, readonly string[]> = {
  js: ['js', 'mjs', 'cjs', 'jsx'],
  ts: ['ts', 'mts', 'cts', 'tsx'],
  py: ['py', 'pyi'],
  md: ['md', 'markdown'],
  json: ['json', 'jsonl'],
  yaml: ['yaml', 'yml'],
  html: ['html', 'htm'],
  css: ['css', 'scss', 'sass', 'less'],
  sh: ['sh', 'bash', 'zsh'],
  rust: ['rs'],
  go: ['go'],
  java: ['java'],
  c: ['c', 'h'],
  cpp: ['cpp', 'cc', 'cxx', 'hpp', 'hh', 'hxx'],
  toml: ['toml'],
  txt: ['txt'],
};

/**
 * A predicate over paths relative to the search root, from optional `glob` and `type`. A glob
 * without `/` matches the file name anywhere (as ripgrep does); with `/` it matches the path.
 * Pure; throws nothing (picomatch treats bad globs literally).
 */
export function createFileFilter(glob: string | undefined, type: string | undefined): (rel: string) => boolean {
  const globMatch = glob ? picomatch(glob, { dot: true, basename: !glob.includes('/') }) : undefined;
  const t = type?.trim().toLowerCase().replace(/^\./, '');
  const exts = t ? new Set(TYPE_EXTENSIONS[t] ?? [t]) : undefined;
  return (rel) => {
    if (globMatch && !globMatch(rel)) return false;
    if (exts) {
      const dot = rel.lastIndexOf('.');
      if (dot === -1 || dot < rel.lastIndexOf('/') || !exts.has(rel.slice(dot + 1).toLowerCase())) return false;
    }
    return true;
  };
}

/**
 * Applies `offset`/`head_limit` (0 = no limit) and says how to get the next page, with the
 * reference's `(pagination: limit=<l>, offset=<o>)` note. Pure.
 */
export function paginate<T>(items: readonly T[], headLimit: number, offset: number): { page: T[]; note: string } {
  const start = Math.min(Math.max(0, offset), items.length);
  const end = headLimit > 0 ? Math.min(items.length, start + headLimit) : items.length;
  const page = items.slice(start, end);
  const note = end < items.length ? `\n\n(pagination: limit=${headLimit}, offset=${end})` : '';
  return { page, note };
}
