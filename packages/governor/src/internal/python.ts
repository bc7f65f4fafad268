// Python semantics the reference relies on (truthiness, str(), str.strip()). Model-visible
// text (backfilled names, merged contents) depends on them, so they are reproduced exactly.

/** Python truthiness of a JSON-ish value. */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

function pyStringLiteral(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of text) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else out += ch;
  }
  return quote + out + quote;
}

function pyFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  return String(value);
}

/** Python `repr()` of a JSON value (dicts as `{'a': 1}`, `None`, `True`). */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return pyFloat(value);
  if (typeof value === 'string') return pyStringLiteral(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const parts = Object.entries(value).map(([k, v]) => `${pyStringLiteral(k)}: ${pyRepr(v)}`);
    return `{${parts.join(', ')}}`;
  }
  return String(value);
}

/** Python `str()`: strings as-is, everything else as its repr. */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyRepr(value);
}

// Python str.isspace() set (differs from JS \s: adds \x1c-\x1f and \x85, lacks \ufeff).
const PY_WS = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEADING = new RegExp(`^[${PY_WS}]+`);
const TRAILING = new RegExp(`[${PY_WS}]+$`);

/** Python `str.strip()` with no arguments. */
export function pyStrip(text: string): string {
  return text.replace(LEADING, '').replace(TRAILING, '');
}

/** Python `not text.strip()` for a string. */
export function pyIsBlank(text: string): boolean {
  return pyStrip(text).length === 0;
}
