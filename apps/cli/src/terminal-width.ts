import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';

/** The width text is laid out for when it goes to a pipe or a file. */
export const PIPED_WIDTH = 80;
/** Below this, layouts stop getting narrower (a few words per line is the floor). */
const MIN_WIDTH = 30;

/**
 * Columns to lay text out in for `stream`: the terminal's width when it is one, else `COLUMNS`
 * when set to a number, else {@link PIPED_WIDTH}. Pure.
 */
export function outputWidth(stream: { isTTY?: boolean; columns?: number }, env: Record<string, string | undefined> = {}): number {
  const tty = stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : undefined;
  const fromEnv = Number(env.COLUMNS);
  const width = tty ?? (Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : PIPED_WIDTH);
  return Math.max(MIN_WIDTH, width);
}

/** Columns `text` takes on a terminal (colour codes take none, wide characters two). */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** `text` (no colour codes) cut to at most `width` columns, ending in `…` when cut. Pure. */
export function fitWidth(text: string, width: number): string {
  if (width <= 0) return '';
  if (stringWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const w = stringWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/**
 * `text` word-wrapped (colour codes kept, words longer than a line broken) for a place
 * `indent` columns in from the left of a `width`-column terminal: every line after the first
 * starts with `indent`, so `label + wrapWidth(text, width, ' '.repeat(label.length))` is a block
 * with a hanging indent. Existing line breaks are kept. Pure.
 */
export function wrapWidth(text: string, width: number, indent = ''): string {
  const room = Math.max(10, width - displayWidth(indent));
  return wrapAnsi(text, room, { hard: true, trim: true, wordWrap: true })
    .split('\n')
    .map((line, i) => (i === 0 ? line : `${indent}${line}`))
    .join('\n');
}
