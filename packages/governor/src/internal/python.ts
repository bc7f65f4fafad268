// Python semantics the reference relies on (truthiness, str.strip()). Model-visible text
// (merged contents, placeholder checks) depends on them, so they are reproduced exactly.
// Python str()/repr() come from @nanobot/schema (`pythonStr`).

/** Python truthiness of a JSON-ish value. */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** Python `str.isspace()` for one UTF-16 unit (all Python whitespace is in the BMP). */
function isPySpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  if (c < 0x85) return false;
  return (
    c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000
  );
}

/** Python `str.strip()` with no arguments (its whitespace set differs from JS `trim`). */
export function pyStrip(text: string): string {
  let a = 0;
  let b = text.length;
  while (a < b && isPySpace(text.charCodeAt(a))) a++;
  while (b > a && isPySpace(text.charCodeAt(b - 1))) b--;
  return a === 0 && b === text.length ? text : text.slice(a, b);
}

/** Python `not text.strip()` for a string, without building the stripped copy. */
export function pyIsBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isPySpace(text.charCodeAt(i))) return false;
  return true;
}
