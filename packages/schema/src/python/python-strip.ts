// Python's str.strip()/lstrip() whitespace: Unicode White_Space plus the ASCII separators
// \x1c-\x1f (str.isspace() is true for them), but not U+FEFF which JS `\s` includes.
const PY_WS = '\\t\\n\\v\\f\\r \\u001c-\\u001f\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEADING = new RegExp(`^[${PY_WS}]+`);
const TRAILING = new RegExp(`[${PY_WS}]+$`);

/** Python `str.strip()`. */
export function pyStrip(text: string): string {
  return text.replace(LEADING, '').replace(TRAILING, '');
}

/** Python `str.lstrip()`. */
export function pyLstrip(text: string): string {
  return text.replace(LEADING, '');
}
