import { SchemaError } from '../errors/errors.js';
import { pythonStr } from '../python/python-repr.js';
import type { JsonSchema } from './tool-definition.js';
import { matchesType, schemaTypes } from './validate-json-schema-value.js';
import { pythonFloat, pythonInt } from '../python/python-cast.js';
import { isRecord } from '../util/is-record.js';

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
