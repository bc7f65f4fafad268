// STUB — being implemented by the schema owner.
/** Length in Unicode code points (Python `len`). */
export function codePointLength(text: string): number {
  return [...text].length;
}

/** Reference `truncate_text`: cut to `maxChars` code points with the reference's suffix. */
export function truncateText(_text: string, _maxChars: number): string {
  throw new Error('not implemented');
}
