import { SchemaError, ValidationError } from '../errors/errors.js';
import { needsFullValidation, validateFullJsonSchema } from './full-json-schema.js';
import { pythonRepr, pythonTypeName } from '../python/python-repr.js';
import type { JsonSchema } from './tool-definition.js';
import { validateJsonSchemaValue } from './validate-json-schema-value.js';
import { isRecord } from '../util/is-record.js';

function hasCycle(value: unknown, onPath: Set<object>): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (onPath.has(value)) return true;
  onPath.add(value);
  for (const child of Object.values(value)) if (hasCycle(child, onPath)) return true;
  onPath.delete(value);
  return false;
}

/**
 * Throws {@link SchemaError} unless `schema` can serve as tool parameters: an object (or
 * `null` for "no parameters") whose root `type` is `object` or absent, acyclic, and — when it
 * uses keywords beyond the mini validator — compilable for full validation. Call it when a
 * tool is defined or registered so a bad schema fails there, not on the model's first call.
 */
export function assertToolParametersSchema(schema: unknown): asserts schema is JsonSchema | null | undefined {
  if (schema === null || schema === undefined) return;
  if (!isRecord(schema)) {
    throw new SchemaError(`Tool parameters must be a JSON Schema object, got ${pythonTypeName(schema)}`);
  }
  const rootType = schema['type'] ?? 'object';
  if (rootType !== 'object') throw new SchemaError(`Schema must be object type, got ${pythonRepr(rootType)}`);
  if (needsFullValidation(schema)) validateFullJsonSchema(schema, {});
}

/**
 * Validates tool-call parameters (reference `Tool.validate_params`): the reference's mini
 * validator first, with its exact messages (`missing required path`, `count must be >= 1`);
 * when those pass and the schema uses keywords the mini validator ignores (`anyOf`, `oneOf`,
 * `$ref`, `const`, `pattern`, `format`, …) full JSON Schema validation follows, in the same
 * message style. Returns `[]` when valid; never mutates `params`. Non-object `params` give one
 * message (`parameters must be an object, got list`). A `null` schema accepts any object.
 * Throws {@link SchemaError} for an unusable schema (root type not `object` — the reference's
 * `Schema must be object type, got 'array'` —, cyclic, uncompilable; see
 * {@link assertToolParametersSchema} to catch that at definition time) and
 * {@link ValidationError} (`CIRCULAR_VALUE`) for cyclic params under full validation.
 */
export function validateParams(schema: JsonSchema | null | undefined, params: unknown): string[] {
  if (!isRecord(params)) return [`parameters must be an object, got ${pythonTypeName(params)}`];
  if (schema === null || schema === undefined) return [];
  if (!isRecord(schema)) throw new SchemaError(`Tool parameters must be a JSON Schema object, got ${pythonTypeName(schema)}`);
  const rootType = schema['type'] ?? 'object';
  if (rootType !== 'object') throw new SchemaError(`Schema must be object type, got ${pythonRepr(rootType)}`);
  const errors = validateJsonSchemaValue(params, schema['type'] === undefined ? { ...schema, type: 'object' } : schema, '');
  if (errors.length === 0 && needsFullValidation(schema)) {
    // A recursive schema ($ref) would follow a cyclic value forever; JSON never is cyclic.
    if (hasCycle(params, new Set())) {
      throw new ValidationError('parameters are a cyclic value, not JSON', [], { code: 'CIRCULAR_VALUE' });
    }
    errors.push(...validateFullJsonSchema(schema, params));
  }
  return errors;
}
