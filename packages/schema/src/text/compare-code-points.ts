const HIGH_FIRST = 0xd800;
const HIGH_LAST = 0xdbff;

function isHigh(unit: number): boolean {
  return unit >= HIGH_FIRST && unit <= HIGH_LAST;
}

/**
 * Orders strings by Unicode code point, as Python compares `str` (`sorted`, `<`): JS `<` and
 * `Array.prototype.sort` compare UTF-16 units, which puts astral characters (U+10000 and up)
 * before U+E000–U+FFFF. A lone surrogate counts as its own code point, as in Python. Returns a
 * negative number, zero or a positive number, for `sort`. Allocates nothing. Pure.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  // The first differing code point starts here, or one unit earlier when both strings share a
  // high surrogate just before it that one of them pairs with the differing unit.
  if (i > 0 && isHigh(a.charCodeAt(i - 1))) {
    const x = a.codePointAt(i - 1)!;
    const y = b.codePointAt(i - 1)!;
    if (x !== y) return x - y;
    // Both are the same lone high surrogate: the next code point decides.
  }
  return a.codePointAt(i)! - b.codePointAt(i)!;
}
