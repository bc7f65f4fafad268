import { pythonIsSpace } from '../python/python-strip.js';

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
    while (start < cps.length && pythonIsSpace(cps[start]!.codePointAt(0)!)) start++;
  }
  return chunks;
}
