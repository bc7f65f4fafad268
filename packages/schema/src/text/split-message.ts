// Python str.isspace() code points (what `lstrip()` removes).
const PY_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
  0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/**
 * Reference `split_message`: chunks of at most `maxLen` code points (for channels with a
 * message-size limit), cutting at the last newline of the window, else its last space, else
 * hard; the remainder is left-trimmed before the next chunk. `""` → `[]`; text that fits, or
 * a `maxLen <= 0`, comes back as one chunk. Linear in the text length.
 */
export function splitMessage(content: string, maxLen = 2000): string[] {
  if (!content) return [];
  const cps = Array.from(content);
  if (cps.length <= maxLen || maxLen <= 0) return [content];
  const chunks: string[] = [];
  let start = 0;
  while (start < cps.length) {
    if (cps.length - start <= maxLen) {
      chunks.push(cps.slice(start).join(''));
      break;
    }
    const end = start + maxLen;
    let pos = -1;
    for (let i = end - 1; i > start; i--) {
      if (cps[i] === '\n') {
        pos = i - start;
        break;
      }
    }
    if (pos <= 0) {
      pos = -1;
      for (let i = end - 1; i > start; i--) {
        if (cps[i] === ' ') {
          pos = i - start;
          break;
        }
      }
    }
    if (pos <= 0) pos = maxLen;
    chunks.push(cps.slice(start, start + pos).join(''));
    start += pos;
    while (start < cps.length && PY_SPACE.has(cps[start]!.codePointAt(0)!)) start++;
  }
  return chunks;
}
