import { SchemaError } from '../errors/errors.js';
import { pythonNumber } from '../python/python-json.js';
import { pythonIn, pythonRepr } from '../python/python-repr.js';
import { pythonTruthy } from '../python/python-truthy.js';
import type { JsonSchema } from './tool-definition.js';
import { codePointLength } from '../text/truncate-text.js';
import { isRecord } from '../util/is-record.js';

/** Non-null type names of a schema's `type` (a name or a list of names). */
export function schemaTypes(schema: JsonSchema): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return type === 'null' ? [] : [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string' && t !== 'null');
  return [];
}

/** Whether `value` is of JSON Schema type `type` as the reference checks it (bool is not a number). */
export function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint';
    case 'number':
      return typeof value === 'number' || typeof value === 'bigint';
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
    default:
      return true; // unknown type names are not checked (reference)
  }
}

const KNOWN_TYPES = new Set(['integer', 'number', 'string', 'boolean', 'array', 'object']);

function subpath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function requiredNames(required: unknown): string[] {
  // Python iterates whatever `required` is: a list, or the characters of a string.
  if (Array.isArray(required)) return required.map((r) => String(r));
  if (typeof required === 'string') return [...required];
  return [];
}

function validate(value: unknown, schema: JsonSchema, path: string, onPath: Set<object>): string[] {
  if (onPath.has(schema)) throw new SchemaError(`JSON Schema is cyclic at ${path || '<root>'}`);
  const label = path || 'parameter';
  const rawType = schema['type'];
  const nullable = (Array.isArray(rawType) && rawType.includes('null')) || pythonTruthy(schema['nullable']);
  if (nullable && value === null) return [];

  // The reference uses only the first non-null type; a union such as ["integer", "string"]
  // then rejects strings. We accept a value matching any listed type (documented deviation).
  const types = schemaTypes(schema);
  let t: string | undefined;
  if (types.length > 0) {
    const known = types.filter((x) => KNOWN_TYPES.has(x));
    if (known.length === 0 || known.length < types.length) {
      t = types.find((x) => matchesType(value, x)) ?? types[0];
    } else {
      t = known.find((x) => matchesType(value, x));
      if (t === undefined) return [`${label} should be ${known.join(' or ')}`];
    }
  }
  if (t === 'number' && typeof value === 'number' && !Number.isFinite(value)) return [`${label} must be finite`];

  const errors: string[] = [];
  if ('enum' in schema && Array.isArray(schema['enum']) && !pythonIn(value, schema['enum'])) {
    errors.push(`${label} must be one of ${pythonRepr(schema['enum'])}`);
  }
  if ((t === 'integer' || t === 'number') && typeof value === 'number') {
    const min = schema['minimum'];
    const max = schema['maximum'];
    if (typeof min === 'number' && value < min) errors.push(`${label} must be >= ${pythonNumber(min)}`);
    if (typeof max === 'number' && value > max) errors.push(`${label} must be <= ${pythonNumber(max)}`);
  }
  if (t === 'string' && typeof value === 'string') {
    const minLength = schema['minLength'];
    const maxLength = schema['maxLength'];
    if (typeof minLength === 'number' || typeof maxLength === 'number') {
      const length = codePointLength(value);
      if (typeof minLength === 'number' && length < minLength) errors.push(`${label} must be at least ${minLength} chars`);
      if (typeof maxLength === 'number' && length > maxLength) errors.push(`${label} must be at most ${maxLength} chars`);
    }
  }
  onPath.add(schema);
  try {
    if (t === 'object' && isRecord(value)) {
      const properties = isRecord(schema['properties']) ? schema['properties'] : {};
      for (const name of requiredNames(schema['required'])) {
        if (!Object.hasOwn(value, name)) errors.push(`missing required ${subpath(path, name)}`);
      }
      const additional = schema['additionalProperties'];
      for (const [key, item] of Object.entries(value)) {
        const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
        if (isRecord(property)) errors.push(...validate(item, property, subpath(path, key), onPath));
        else if (property !== undefined) continue;
        else if (additional === false) errors.push(`unexpected parameter ${subpath(path, key)}`);
        else if (isRecord(additional)) errors.push(...validate(item, additional, subpath(path, key), onPath));
      }
    }
    if (t === 'array' && Array.isArray(value)) {
      const minItems = schema['minItems'];
      const maxItems = schema['maxItems'];
      if (typeof minItems === 'number' && value.length < minItems) errors.push(`${label} must have at least ${minItems} items`);
      if (typeof maxItems === 'number' && value.length > maxItems) errors.push(`${label} must be at most ${maxItems} items`);
      const items = schema['items'];
      if (isRecord(items)) {
        for (let i = 0; i < value.length; i++) errors.push(...validate(value[i], items, path ? `${path}[${i}]` : `[${i}]`, onPath));
      }
    }
  } finally {
    onPath.delete(schema);
  }
  return errors;
}

/**
 * The reference's mini JSON-Schema validator (`Schema.validate_json_schema_value`): `type`,
 * `nullable`, `enum`, `minimum`/`maximum`, `minLength`/`maxLength` (code points), `properties`,
 * `required`, `additionalProperties`, `items`, `minItems`/`maxItems`, with its exact,
 * path-qualified messages (`meta.flags[0] should be string`). Returns `[]` when valid. Never
 * mutates `value` or `schema`; throws {@link SchemaError} only for a cyclic schema.
 * Keywords it ignores are enforced by {@link validateParams}' full validation.
 */
export function validateJsonSchemaValue(value: unknown, schema: JsonSchema, path = ''): string[] {
  if (!isRecord(schema)) throw new SchemaError(`Expected a JSON Schema object, got ${schema === null ? 'null' : Array.isArray(schema) ? 'array' : typeof schema}`);
  return validate(value, schema, path, new Set());
}
