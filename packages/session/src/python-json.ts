import { randomBytes } from 'node:crypto';

// Number tokens whose JS value would not write back as the same token (NaN, ±Infinity, integers
// above 2^53, `1.0`, `1e-07`, `-0`…), remembered per containing object/array and key. The
// holder objects are the parsed values themselves, so nothing leaks once they are dropped.
const rawNumbers = new WeakMap<object, Map<string, string>>();
// Top-level records that hold at least one such token (and need the slower serialiser).
const withRawNumbers = new WeakSet<object>();

const NONCE = randomBytes(6).toString('hex');
const SENTINEL = `\u0000nb-num-${NONCE}:`;
const QUOTED_SENTINEL = new RegExp(`"\\\\u0000nb-num-${NONCE}:(\\d+)"`, 'g');

function tokenValue(token: string): number {
  if (token === 'NaN') return NaN;
  if (token === 'Infinity') return Infinity;
  if (token === '-Infinity') return -Infinity;
  return Number(token);
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const NUMBER_CHAR = /[0-9+\-.eE]/y;

/** Start/end offsets of number-like tokens outside strings that JSON.stringify would not reproduce. */
function specialTokens(text: string): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string literal.
      i += 1;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) break;
        else i += 1;
      }
      i += 1;
      continue;
    }
    if (c === 0x4e && text.startsWith('NaN', i)) {
      found.push([i, i + 3]);
      i += 3;
      continue;
    }
    if (c === 0x49 && text.startsWith('Infinity', i)) {
      found.push([i, i + 8]);
      i += 8;
      continue;
    }
    if (c === 0x2d && text.startsWith('-Infinity', i)) {
      found.push([i, i + 9]);
      i += 9;
      continue;
    }
    if (c === 0x2d || isDigit(c)) {
      const start = i;
      i += 1;
      NUMBER_CHAR.lastIndex = i;
      while (i < n && NUMBER_CHAR.test(text)) {
        i += 1;
        NUMBER_CHAR.lastIndex = i;
      }
      const token = text.slice(start, i);
      if (String(Number(token)) !== token) found.push([start, i]);
      continue;
    }
    i += 1;
  }
  return found;
}

/**
 * Parses one JSON value as Python's `json` writes it: standard JSON plus the bare tokens `NaN`,
 * `Infinity` and `-Infinity`. Number tokens that a JS number would not write back identically
 * (big integers, `1.0`, `1e-07`, the non-finite ones) are remembered so that
 * {@link stringifyJson} writes the very same token again while the value is unchanged.
 * Throws SyntaxError like `JSON.parse`.
 */
export function parseJson(text: string): unknown {
  const tokens = specialTokens(text);
  if (tokens.length === 0) return JSON.parse(text);
  let replaced = '';
  let last = 0;
  tokens.forEach(([start, end], index) => {
    replaced += `${text.slice(last, start)}"\\u0000nb-num-${NONCE}:${index}"`;
    last = end;
  });
  replaced += text.slice(last);
  const raws = tokens.map(([start, end]) => text.slice(start, end));
  const root = JSON.parse(replaced, function revive(this: unknown, key: string, value: unknown) {
    if (typeof value !== 'string' || !value.startsWith(SENTINEL)) return value;
    const raw = raws[Number(value.slice(SENTINEL.length))];
    if (raw === undefined) return value;
    if (typeof this === 'object' && this !== null) {
      let map = rawNumbers.get(this);
      if (!map) rawNumbers.set(this, (map = new Map()));
      map.set(key, raw);
    }
    return tokenValue(raw);
  }) as unknown;
  if (typeof root === 'object' && root !== null) withRawNumbers.add(root);
  return root;
}

/**
 * `JSON.stringify(value)` (compact), except that numbers read by {@link parseJson} are written
 * with their original token while unchanged, and non-finite numbers as Python's bare `NaN`,
 * `Infinity`, `-Infinity` (which Python's `json` and {@link parseJson} read back) instead of `null`.
 */
export function stringifyJson(value: unknown): string {
  const tokens: string[] = [];
  const text = JSON.stringify(value, function replace(this: unknown, key: string, v: unknown) {
    if (typeof v !== 'number') return v;
    const raw = typeof this === 'object' && this !== null ? rawNumbers.get(this)?.get(key) : undefined;
    if (raw !== undefined && Object.is(tokenValue(raw), v)) {
      tokens.push(raw);
      return `${SENTINEL}${tokens.length - 1}`;
    }
    if (Number.isFinite(v)) return v;
    tokens.push(Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity');
    return `${SENTINEL}${tokens.length - 1}`;
  });
  if (tokens.length === 0) return text;
  return text.replace(QUOTED_SENTINEL, (_m, index: string) => tokens[Number(index)]);
}

/** Whether a parsed record holds number tokens that plain `JSON.stringify` would change. */
export function hasRawNumbers(value: object): boolean {
  return withRawNumbers.has(value);
}
