import { pythonIsSpace } from './python-strip.js';

const DECIMAL_DIGIT = /^\p{Nd}$/u;

/** Value of a Unicode decimal digit (Python `int()` accepts any \p{Nd}), or -1. */
function digitValue(ch: string): number {
  const code = ch.codePointAt(0)!;
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code < 0x80 || !DECIMAL_DIGIT.test(ch)) return -1;
  // Unicode guarantees Nd characters come in contiguous runs of 0..9 (adjacent runs, such as
  // the mathematical digits, are back to back), so the value is the offset from the run start.
  let start = code;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (code - start) % 10;
}

/** ASCII-fies Unicode digits and checks Python's underscore rule (only between digits). */
function normaliseDigits(body: string): string | null {
  let out = '';
  let prevDigit = false;
  const chars = [...body];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '_') {
      const next = chars[i + 1];
      if (!prevDigit || next === undefined || digitValue(next) < 0) return null;
      prevDigit = false;
      continue;
    }
    const d = digitValue(ch);
    if (d >= 0) {
      out += String(d);
      prevDigit = true;
    } else {
      out += ch;
      prevDigit = false;
    }
  }
  return out;
}

// What `int()` and `float()` skip around the number: Python first maps non-ASCII whitespace to
// a space, then skips ASCII whitespace only, so U+001C–U+001F (whitespace to `str.strip()`) make
// the text invalid, and U+FEFF (whitespace to JS `\s`) is not skipped either.
function isNumberSpace(code: number): boolean {
  return code < 0x80 ? code === 0x20 || (code >= 0x09 && code <= 0x0d) : pythonIsSpace(code);
}

function stripNumberSpace(text: string): string {
  let a = 0;
  let b = text.length;
  while (a < b && isNumberSpace(text.charCodeAt(a))) a++;
  while (b > a && isNumberSpace(text.charCodeAt(b - 1))) b--;
  return text.slice(a, b);
}

/** Python `int(text)` for base 10, or `undefined` when Python would raise. */
export function pythonInt(text: string): number | undefined {
  const stripped = stripNumberSpace(text);
  const match = /^([+-]?)(.+)$/su.exec(stripped);
  if (!match) return undefined;
  const digits = normaliseDigits(match[2]!);
  if (digits === null || !/^[0-9]+$/.test(digits)) return undefined;
  const n = Number(digits);
  return match[1] === '-' && n !== 0 ? -n : n;
}

/** Python `float(text)`, or `undefined` when Python would raise. */
export function pythonFloat(text: string): number | undefined {
  const stripped = stripNumberSpace(text);
  const special = /^([+-]?)(nan|inf|infinity)$/i.exec(stripped);
  if (special) {
    if (special[2]!.toLowerCase() === 'nan') return NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  const normalised = normaliseDigits(stripped);
  if (normalised === null) return undefined;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(normalised)) return undefined;
  return Number(normalised);
}
