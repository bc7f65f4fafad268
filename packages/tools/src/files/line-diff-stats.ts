/**
 * Lines added and deleted from `before` to `after` (CRLF read as LF), as a line diff counts
 * them: common head and tail lines are skipped, the middle is compared by longest common
 * subsequence. A middle too large for that (over ~4M line pairs) counts as wholly replaced.
 * Pure.
 */
export function lineDiffStats(before: string, after: string): { added: number; deleted: number } {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  if (x.length === 0 || y.length === 0 || x.length * y.length > 4_000_000) return { added: y.length, deleted: x.length };
  // One row of the LCS table at a time: memory O(|y|).
  let prev = new Uint32Array(y.length + 1);
  let row = new Uint32Array(y.length + 1);
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) row[j] = x[i - 1] === y[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], row[j - 1]);
    [prev, row] = [row, prev];
  }
  const common = prev[y.length];
  return { added: y.length - common, deleted: x.length - common };
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
