import { SchemaError } from '../errors/errors.js';
import { pythonStr } from '../python/python-repr.js';
import type { JsonSchema } from './tool-definition.js';
import { matchesType, schemaTypes } from './validate-json-schema-value.js';
import { isRecord } from '../util/is-record.js';

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

// Python's str.strip() whitespace.
const PY_SPACE = /^[\s\u001c-\u001f\u0085]+|[\s\u001c-\u001f\u0085]+$/gu;

/** Python `int(text)` for base 10, or `undefined` when Python would raise. */
export function pythonInt(text: string): number | undefined {
  const stripped = text.replace(PY_SPACE, '');
  const match = /^([+-]?)(.+)$/su.exec(stripped);
  if (!match) return undefined;
  const digits = normaliseDigits(match[2]!);
  if (digits === null || !/^[0-9]+$/.test(digits)) return undefined;
  const n = Number(digits);
  return match[1] === '-' && n !== 0 ? -n : n;
}

/** Python `float(text)`, or `undefined` when Python would raise. */
export function pythonFloat(text: string): number | undefined {
  const stripped = text.replace(PY_SPACE, '');
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

function castBoolean(value: string): boolean | string {
  const lowered = value.toLowerCase();
  if (lowered === 'true' || lowered === '1' || lowered === 'yes') return true;
  if (lowered === 'false' || lowered === '0' || lowered === 'no') return false;
  return value;
}

function castTo(value: unknown, t: string, schema: JsonSchema, onPath: Set<object>): unknown {
  if (t === 'boolean' && typeof value === 'boolean') return value;
  if (t === 'integer' && typeof value === 'number' && Number.isInteger(value)) return value;
  if (t === 'number' && (typeof value === 'number' || typeof value === 'boolean')) return value;
  if (t === 'string' && typeof value === 'string') return value;
  if (t === 'integer' && typeof value === 'string') return pythonInt(value) ?? value;
  if (t === 'number' && typeof value === 'string') return pythonFloat(value) ?? value;
  if (t === 'string') {
    if (value === null || value === undefined) return value;
    // Deviation: the reference writes Python str() of lists/dicts ("['ls', '-la']"), which
    // then passes validation as garbage text; we leave them for validation to reject.
    if (typeof value === 'object') return value;
    return pythonStr(value);
  }
  if (t === 'boolean' && typeof value === 'string') return castBoolean(value);
  if (t === 'array' && Array.isArray(value)) {
    const items = schema['items'];
    return isRecord(items) ? value.map((item) => castValue(item, items, onPath)) : value;
  }
  if (t === 'object' && isRecord(value)) return castObject(value, schema, onPath);
  return value;
}

function castValue(value: unknown, schema: JsonSchema, onPath: Set<object>): unknown {
  if (onPath.has(schema)) throw new SchemaError('JSON Schema is cyclic');
  const types = schemaTypes(schema);
  if (types.length === 0) return value;
  onPath.add(schema);
  try {
    if (types.length === 1) return castTo(value, types[0]!, schema, onPath);
    // Union (deviation): keep a value that already fits one type; else the first cast that fits.
    const fitting = types.find((t) => matchesType(value, t));
    if (fitting !== undefined) return castTo(value, fitting, schema, onPath);
    for (const t of types) {
      const cast = castTo(value, t, schema, onPath);
      if (cast !== value && matchesType(cast, t)) return cast;
    }
    return value;
  } finally {
    onPath.delete(schema);
  }
}

function castObject(value: Record<string, unknown>, schema: JsonSchema, onPath: Set<object>): Record<string, unknown> {
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  const additional = schema['additionalProperties'];
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (isRecord(property)) out[key] = castValue(item, property, onPath);
    else if (property === undefined && isRecord(additional)) out[key] = castValue(item, additional, onPath);
    else out[key] = item;
  }
  return out;
}

/**
 * The reference's lenient casts before validation (`Tool.cast_params`): `"3"`/`" 3 "`/`"1_000"`/
 * `"٣"` → 3 for integers, Python `float()` spellings for numbers (incl. `nan`/`inf`, then
 * rejected as non-finite), `"true"`/`"yes"`/`"1"` and `"false"`/`"no"`/`"0"` for booleans,
 * Python `str()` of numbers/booleans for strings; recursive through `properties`,
 * `additionalProperties` and `items`. Anything that does not cast is kept for validation to
 * report. Returns a new object; never mutates `params`; idempotent. A root schema whose type
 * is not `object` (or a `null` schema) returns `params` unchanged. Throws {@link SchemaError}
 * for a schema that is not an object, or a cyclic one.
 */
export function castParams(schema: JsonSchema | null | undefined, params: Record<string, unknown>): Record<string, unknown> {
  if (schema === null || schema === undefined) return params;
  if (!isRecord(schema)) throw new SchemaError(`Tool parameters must be a JSON Schema object, got ${Array.isArray(schema) ? 'list' : typeof schema}`);
  const rootType = schema['type'] ?? 'object';
  if (rootType !== 'object' || !isRecord(params)) return params;
  return castObject(params, schema, new Set());
}

/** Casts one value against one schema fragment (`Tool._cast_value`). */
export function castJsonSchemaValue(value: unknown, schema: JsonSchema): unknown {
  if (!isRecord(schema)) return value;
  return castValue(value, schema, new Set());
}
