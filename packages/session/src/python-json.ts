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

// String literals (skipped whole by the regex engine) or runs of everything else.
const SEGMENT = /"[^"\\]*(?:\\.[^"\\]*)*"?|[^"]+/g;
const NUMBER_TOKEN = /NaN|-?Infinity|-?\d[\d.eE+-]*/g;

/** Start/end offsets of number-like tokens outside strings that JSON.stringify would not reproduce. */
function specialTokens(text: string): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  SEGMENT.lastIndex = 0;
  for (let m = SEGMENT.exec(text); m !== null; m = SEGMENT.exec(text)) {
    const segment = m[0];
    if (segment.charCodeAt(0) === 0x22) continue;
    NUMBER_TOKEN.lastIndex = 0;
    for (let n = NUMBER_TOKEN.exec(segment); n !== null; n = NUMBER_TOKEN.exec(segment)) {
      const token = n[0];
      // NaN and ±Infinity are not JSON at all; the rest only when String() would spell them differently.
      if (token.charCodeAt(token.length - 1) > 0x39 || String(Number(token)) !== token) found.push([m.index + n.index, m.index + n.index + token.length]);
    }
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
  let plain: unknown;
  let failure: unknown = null;
  try {
    plain = JSON.parse(text);
    // Without a number anywhere there is no token to remember (most message lines).
    if (!containsNumber(plain)) return plain;
  } catch (error) {
    failure = error; // maybe NaN/Infinity; rethrown below when it was not that
  }
  const tokens = specialTokens(text);
  if (tokens.length === 0) {
    if (failure !== null) throw failure;
    return plain;
  }
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

function containsNumber(value: unknown): boolean {
  if (typeof value === 'number') return true;
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(containsNumber);
  for (const key in value) {
    if (containsNumber((value as Record<string, unknown>)[key])) return true;
  }
  return false;
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
