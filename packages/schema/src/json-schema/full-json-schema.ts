// Full JSON Schema validation for the keywords the reference's mini validator ignores
// (anyOf/oneOf/allOf/not, $ref, const, pattern, format, if/then/else, tuples, …).
//
// Why ajv and not zod's converter: zod 4.6's `z.fromJSONSchema` is documented as
// semi-experimental and throws on `not`, `if`/`then`/`else`, `dependentRequired`/
// `dependentSchemas` and `unevaluated*` — exactly the keywords MCP servers' schemas use, so
// such a tool would end up not enforced at all. ajv implements draft-07 and 2020-12 fully, is
// the most used validator on npm, and its errors carry instance paths we turn into the
// reference's path-qualified messages. It is loaded on first use (import time stays small).
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { SchemaError } from '../errors/errors.js';
import type { JsonSchema } from './tool-definition.js';
import { isRecord } from '../util/is-record.js';

// What the mini validator enforces, plus annotations that never affect validity.
const COVERED = new Set([
  'type', 'nullable', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'properties', 'required',
  'additionalProperties', 'items', 'minItems', 'maxItems',
  'description', 'title', 'default', 'examples', '$schema', '$id', '$comment', 'deprecated', 'readOnly', 'writeOnly',
]);

const needsCache = new WeakMap<object, boolean>();

function usesUncovered(schema: unknown, onPath: Set<object>): boolean {
  if (Array.isArray(schema)) return true; // e.g. tuple `items`
  if (!isRecord(schema)) return false;
  if (onPath.has(schema)) throw new SchemaError('JSON Schema is cyclic (use $defs/$ref for recursion)');
  onPath.add(schema);
  try {
    for (const [key, value] of Object.entries(schema)) {
      if (key.startsWith('x-')) continue;
      if (!COVERED.has(key)) return true;
      if (key === 'properties' && isRecord(value)) {
        for (const sub of Object.values(value)) if (usesUncovered(sub, onPath)) return true;
      } else if ((key === 'items' || key === 'additionalProperties') && usesUncovered(value, onPath)) return true;
      else if (key === 'required' && !Array.isArray(value)) return true;
    }
    return false;
  } finally {
    onPath.delete(schema);
  }
}

/**
 * Whether `schema` uses keywords beyond the reference's mini validator, so that
 * {@link validateParams} must also run full validation. Cached per schema object. Throws
 * {@link SchemaError} for a cyclic schema.
 */
export function needsFullValidation(schema: JsonSchema): boolean {
  const hit = needsCache.get(schema);
  if (hit !== undefined) return hit;
  const needs = usesUncovered(schema, new Set());
  needsCache.set(schema, needs);
  return needs;
}

interface AjvLike {
  compile(schema: unknown): ValidateFunction;
}

let ajv2020: AjvLike | undefined;
let ajv07: AjvLike | undefined;

function createAjv(draft: '2020' | '07'): AjvLike {
  const require = createRequire(import.meta.url);
  const mod = require(draft === '2020' ? 'ajv/dist/2020' : 'ajv') as { default: new (opts: object) => AjvLike };
  const formats = require('ajv-formats') as { default: (ajv: AjvLike) => void };
  const instance = new mod.default({
    allErrors: true,
    strict: false,
    validateSchema: false,
    addUsedSchema: false,
    // Never touch the caller's data: no defaults, no coercion, no removal.
    useDefaults: false,
    coerceTypes: false,
    removeAdditional: false,
  });
  formats.default(instance);
  return instance;
}

/** Walks the whole schema once: throws on cycles, reports whether tuple-form `items` occurs. */
function inspect(node: unknown, onPath: Set<object>): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if (onPath.has(node)) throw new SchemaError('JSON Schema is cyclic (use $defs/$ref for recursion)');
  onPath.add(node);
  let tuple = false;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'items' && Array.isArray(value)) tuple = true;
    if (inspect(value, onPath)) tuple = true;
  }
  onPath.delete(node);
  return tuple;
}

function draftOf(schema: JsonSchema): '2020' | '07' {
  const tuple = inspect(schema, new Set());
  const declared = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  if (/draft-0[4-7]/.test(declared)) return '07';
  if (/2019-09|2020-12/.test(declared)) return '2020';
  // Array-form `items` (tuples) only means something before 2020-12.
  return tuple ? '07' : '2020';
}

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Compiles `schema` for full validation (cached per schema object). Throws
 * {@link SchemaError} when the schema cannot be compiled (bad regex, unresolvable `$ref`, …).
 */
export function compileJsonSchema(schema: JsonSchema): ValidateFunction {
  const hit = compiled.get(schema);
  if (hit !== undefined) return hit;
  const draft = draftOf(schema); // also rejects cyclic objects before ajv recurses into them
  const { $schema: _ignored, ...rest } = schema;
  let validate: ValidateFunction;
  try {
    if (draft === '2020') validate = (ajv2020 ??= createAjv('2020')).compile(rest);
    else validate = (ajv07 ??= createAjv('07')).compile(rest);
  } catch (cause) {
    throw new SchemaError(`JSON Schema cannot be compiled: ${(cause as Error).message}`, { cause });
  }
  compiled.set(schema, validate);
  return validate;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `/meta/flags/0` → `meta.flags[0]` (array indices in brackets, as the reference writes them). */
function instancePathLabel(pointer: string, value: unknown): string {
  if (pointer === '') return '';
  let path = '';
  let node: unknown = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = decodePointer(raw);
    if (Array.isArray(node)) {
      path += `[${key}]`;
      node = node[Number(key)];
    } else {
      path = path ? `${path}.${key}` : key;
      node = isRecord(node) ? node[key] : undefined;
    }
  }
  return path;
}

function subpath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** ajv errors → short, path-qualified messages in the reference's style. */
function describe(errors: readonly ErrorObject[], value: unknown): string[] {
  const out: string[] = [];
  for (const error of errors) {
    // Branch failures of anyOf/oneOf are noise next to the combinator's own error.
    if (/\/(anyOf|oneOf)\/\d+\//.test(error.schemaPath)) continue;
    if (error.keyword === 'if') continue; // the failing then/else branch is reported itself
    const path = instancePathLabel(error.instancePath, value);
    const label = path || 'parameter';
    const params = error.params as Record<string, unknown>;
    let message: string;
    switch (error.keyword) {
      case 'required':
        message = `missing required ${subpath(path, String(params['missingProperty']))}`;
        break;
      case 'additionalProperties':
        message = `unexpected parameter ${subpath(path, String(params['additionalProperty']))}`;
        break;
      case 'type':
        message = `${label} should be ${String(params['type']).split(',').join(' or ')}`;
        break;
      case 'const':
        message = `${label} must be ${JSON.stringify(params['allowedValue'])}`;
        break;
      default:
        message = `${label} ${error.message ?? 'is invalid'}`;
    }
    if (!out.includes(message)) out.push(message);
  }
  return out;
}

/**
 * Full JSON Schema validation of `value` (draft 2020-12, or draft-07 when the schema says so
 * or uses tuple `items`), as short path-qualified messages; `[]` when valid. Never mutates
 * `value`. Throws {@link SchemaError} for a cyclic or uncompilable schema.
 */
export function validateFullJsonSchema(schema: JsonSchema, value: unknown): string[] {
  const validate = compileJsonSchema(schema);
  if (validate(value)) return [];
  return describe(validate.errors ?? [], value);
}
