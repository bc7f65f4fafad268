import { pythonNumber } from './python-json.js';

// Python's str.isprintable() is false for these categories (space excepted).
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

/** Python `repr(str)`: single quotes unless only `'` occurs, Python escapes for non-printables. */
export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && NON_PRINTABLE.test(ch)) {
      out += code < 0x100 ? `\\x${hex(code, 2)}` : code < 0x10000 ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
    } else out += ch;
  }
  return out + quote;
}

function floatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  return pythonNumber(value);
}

/**
 * Python `repr()` of a JSON-like value (`None`, `True`, `['a', 1]`, `{'k': 'v'}`), used where the
 * reference prints Python values into model-visible messages (enum lists). Cycles print `[...]`
 * / `{...}` as Python does.
 */
export function pythonRepr(value: unknown, seen: Set<object> = new Set()): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return floatRepr(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return pythonStringRepr(value);
  if (typeof value !== 'object') return pythonStringRepr(String(value));
  if (seen.has(value)) return Array.isArray(value) ? '[...]' : '{...}';
  seen.add(value);
  try {
    if (Array.isArray(value)) return `[${value.map((item) => pythonRepr(item, seen)).join(', ')}]`;
    const items = Object.entries(value).map(([k, v]) => `${pythonStringRepr(k)}: ${pythonRepr(v, seen)}`);
    return `{${items.join(', ')}}`;
  } finally {
    seen.delete(value);
  }
}

/** Python `str()` of a JSON-like value: strings as-is, everything else as its repr. */
export function pythonStr(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

/** Python type name of a JSON-like value (`str`, `int`, `float`, `bool`, `list`, `dict`, `NoneType`). */
export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'string') return 'str';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'dict';
  return typeof value;
}

/** Python `==` on JSON-like values: `True == 1 == 1.0`, deep for lists and dicts. */
export function pythonEquals(a: unknown, b: unknown): boolean {
  const na = typeof a === 'boolean' ? Number(a) : a;
  const nb = typeof b === 'boolean' ? Number(b) : b;
  if (typeof na === 'number' && typeof nb === 'number') return na === nb;
  if (na === null || nb === null || na === undefined || nb === undefined) return na === nb || (na == null && nb == null);
  if (typeof na !== typeof nb) return false;
  if (typeof na !== 'object') return na === nb;
  if (Array.isArray(na) !== Array.isArray(nb)) return false;
  if (Array.isArray(na)) {
    const bb = nb as unknown[];
    return na.length === bb.length && na.every((item, i) => pythonEquals(item, bb[i]));
  }
  const ka = Object.keys(na as object);
  const ob = nb as Record<string, unknown>;
  if (ka.length !== Object.keys(ob).length) return false;
  return ka.every((k) => Object.hasOwn(ob, k) && pythonEquals((na as Record<string, unknown>)[k], ob[k]));
}

/** Python `x in list` (identity first, then `==`). */
export function pythonIn(value: unknown, list: readonly unknown[]): boolean {
  return list.some((item) => item === value || pythonEquals(value, item));
}
