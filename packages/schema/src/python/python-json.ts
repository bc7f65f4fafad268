import { ValidationError } from '../errors/errors.js';
import { compareCodePoints } from '../text/compare-code-points.js';

/** Options of {@link pythonJsonDumps}. */
export interface PythonJsonDumpsOptions {
  /** Python `sort_keys=True`: keys ordered by code point, as Python compares `str`. */
  sortKeys?: boolean;
}

// Python's `json` escapes only these when ensure_ascii=False; everything else (DEL, non-ASCII,
// lone surrogates) is written as-is.
const ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
const NEEDS_ESCAPE_G = /["\\\u0000-\u001f]/g;

/** Python `json.dumps` spelling of one string (ensure_ascii=False). */
export function pythonJsonString(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return `"${text}"`;
  return `"${text.replace(NEEDS_ESCAPE_G, (ch) => ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/**
 * Python spelling of a JS number. JSON cannot tell `3` from `3.0`, so an integral value below
 * 1e16 is written as a Python int; everything else follows `float.__repr__`: shortest
 * round-trip digits, scientific outside 1e-4 ≤ |x| < 1e16 with a signed two-digit exponent
 * (`1e-07`, `1.5e+20`), and `NaN` / `Infinity` / `-Infinity` as Python's json writes them.
 */
export function pythonNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return Object.is(value, -0) ? '0' : String(value);
  const exp = value.toExponential(); // shortest round-trip digits, e.g. "-1.25e-7"
  const at = exp.indexOf('e');
  const mantissa = exp.slice(0, at);
  const e = Number(exp.slice(at + 1));
  const decpt = e + 1;
  if (decpt > 16 || decpt < -3) {
    const abs = Math.abs(e);
    return `${mantissa}e${e < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
  }
  // Fixed notation (1e-4 ≤ |x| < 1e16, non-integral here): JS and Python agree on the digits.
  return String(value);
}

/**
 * Python `json.dumps(value, ensure_ascii=False)`: `", "` and `": "` separators, non-ASCII kept,
 * key order preserved (or sorted by code point with `sortKeys`). Used wherever the reference
 * counts or shows serialised JSON, so token counts match it exactly.
 *
 * Like `JSON.stringify`, object keys whose value is `undefined`, a function or a symbol are
 * skipped (in arrays they become `null`) and `toJSON()` is honoured; `bigint` is written as an
 * integer. Throws {@link ValidationError} (code `CIRCULAR_JSON`) on a cyclic value instead of
 * overflowing the stack.
 */
export function pythonJsonDumps(value: unknown, options: PythonJsonDumpsOptions = {}): string {
  const sortKeys = options.sortKeys === true;
  const stack = new Set<object>();
  const path: (string | number)[] = [];

  const write = (val: unknown): string | undefined => {
    if (val === null) return 'null';
    switch (typeof val) {
      case 'string':
        return pythonJsonString(val);
      case 'number':
        return pythonNumber(val);
      case 'boolean':
        return val ? 'true' : 'false';
      case 'bigint':
        return val.toString();
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
      default:
        break;
    }
    const obj = val as { toJSON?: unknown };
    if (typeof obj.toJSON === 'function') return write((obj.toJSON as () => unknown)());
    if (stack.has(obj)) {
      throw new ValidationError(`cannot serialise a cyclic value (at ${path.length ? path.join('.') : '<root>'})`, [...path], {
        code: 'CIRCULAR_JSON',
      });
    }
    stack.add(obj);
    try {
      if (Array.isArray(val)) {
        if (val.length === 0) return '[]';
        const items: string[] = [];
        for (let i = 0; i < val.length; i++) {
          path.push(i);
          items.push(write(val[i]) ?? 'null');
          path.pop();
        }
        return `[${items.join(', ')}]`;
      }
      let keys = Object.keys(val);
      if (sortKeys) keys = [...keys].sort(compareCodePoints);
      const items: string[] = [];
      for (const key of keys) {
        path.push(key);
        const text = write((val as Record<string, unknown>)[key]);
        path.pop();
        if (text !== undefined) items.push(`${pythonJsonString(key)}: ${text}`);
      }
      return items.length === 0 ? '{}' : `{${items.join(', ')}}`;
    } finally {
      stack.delete(obj);
    }
  };

  return write(value) ?? 'null';
}
