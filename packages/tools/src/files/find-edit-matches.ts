/** One place `old_text` matches, as offsets into the (LF-normalised) content. */
export interface EditMatch {
  readonly start: number;
  readonly end: number;
  /** 1-based line of `start`. */
  readonly line: number;
}

/** How the matches were found: verbatim, or after trimming lines and straightening quotes. */
export type MatchKind = 'exact' | 'normalised';

const QUOTES: Record<string, string> = { '\u2018': "'", '\u2019': "'", '\u201c': '"', '\u201d': '"' };

function normaliseLine(line: string): string {
  return line.trim().replace(/[\u2018\u2019\u201c\u201d]/g, (q) => QUOTES[q] ?? q);
}

function lineOf(content: string, offset: number): number {
  let line = 1;
  for (let i = content.indexOf('\n'); i !== -1 && i < offset; i = content.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Finds every non-overlapping place `needle` occurs in `content` (both LF-normalised): exact
 * occurrences first; only when there are none, windows of whole lines that equal the needle's
 * lines after trimming and quote straightening (models often get indentation or quotes wrong).
 * Pure.
 */
export function findEditMatches(content: string, needle: string): { kind: MatchKind; matches: EditMatch[] } {
  const exact: EditMatch[] = [];
  if (needle.length > 0) {
    for (let at = content.indexOf(needle); at !== -1; at = content.indexOf(needle, at + needle.length)) {
      exact.push({ start: at, end: at + needle.length, line: lineOf(content, at) });
    }
  }
  if (exact.length > 0) return { kind: 'exact', matches: exact };

  const wanted = needle.split('\n').map(normaliseLine);
  while (wanted.length > 1 && wanted[wanted.length - 1] === '') wanted.pop();
  if (wanted.every((l) => l === '')) return { kind: 'normalised', matches: [] };
  const lines = content.split('\n');
  const starts: number[] = [];
  let offset = 0;
  for (const l of lines) {
    starts.push(offset);
    offset += l.length + 1;
  }
  const found: EditMatch[] = [];
  for (let i = 0; i + wanted.length <= lines.length; i++) {
    let same = true;
    for (let j = 0; j < wanted.length && same; j++) same = normaliseLine(lines[i + j]) === wanted[j];
    if (!same) continue;
    const last = i + wanted.length - 1;
    found.push({ start: starts[i], end: starts[last] + lines[last].length, line: i + 1 });
    i = last;
  }
  return { kind: 'normalised', matches: found };
}
