/**
 * Code-point order, as the registry sorts definitions: `localeCompare` varies by locale and `<`
 * compares UTF-16 units, which puts astral characters before U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    const diff = left[i].codePointAt(0)! - right[i].codePointAt(0)!;
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}
