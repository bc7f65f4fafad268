// Python's whitespace (`str.isspace()`, what `strip()`/`lstrip()`/`rstrip()` remove with no
// argument): Unicode White_Space plus the ASCII separators U+001C–U+001F. It differs from JS
// `\s` and `trim()`: those take U+FEFF and leave U+001C–U+001F and U+0085. Every Python
// whitespace character is in the BMP, so scanning UTF-16 units is exact (a surrogate never is).

/**
 * Python's whitespace as a JS regular-expression character class, for porting the reference's
 * regexes: what `\s` matches in a Python `str` pattern (the same set as `str.isspace()`).
 * Works with and without the `u` flag.
 */
export const PYTHON_WHITESPACE_CLASS = '[\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';

/** Python `chr(code).isspace()` for one UTF-16 unit or code point. Pure. */
export function pythonIsSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code >= 0x1c && code <= 0x1f);
  if (code < 0x85) return false;
  return (
    code === 0x85 || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000
  );
}

function leadingEnd(text: string): number {
  let a = 0;
  while (a < text.length && pythonIsSpace(text.charCodeAt(a))) a++;
  return a;
}

function trailingStart(text: string, from: number): number {
  let b = text.length;
  while (b > from && pythonIsSpace(text.charCodeAt(b - 1))) b--;
  return b;
}

/** Python `text.strip()` with no argument. Returns `text` itself when nothing is stripped. Pure. */
export function pythonStrip(text: string): string {
  const a = leadingEnd(text);
  const b = trailingStart(text, a);
  return a === 0 && b === text.length ? text : text.slice(a, b);
}

/** Python `text.lstrip()` with no argument. Pure. */
export function pythonLstrip(text: string): string {
  const a = leadingEnd(text);
  return a === 0 ? text : text.slice(a);
}

/** Python `text.rstrip()` with no argument. Pure. */
export function pythonRstrip(text: string): string {
  const b = trailingStart(text, 0);
  return b === text.length ? text : text.slice(0, b);
}

/** Python `not text.strip()`: empty or only whitespace, without building the stripped copy. Pure. */
export function pythonIsBlank(text: string): boolean {
  return leadingEnd(text) === text.length;
}
