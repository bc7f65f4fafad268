// Full JSON Schema validation for the keywords the reference's mini validator ignores
// (anyOf/oneOf/allOf/not, $ref, const, pattern, format, if/then/else, tuples, …), in the
// reference's message style.
//
// Two validators behind one interface, chosen per runtime:
// - ajv (draft-07 and 2020-12 in full, the most used validator on npm) where the Node entry
//   registers it: Node, Bun and Deno. It compiles each schema to JavaScript with `new Function`
//   and costs ~100 ms to import, so the Node entry requires it on first use (ajv-backend.ts).
// - @cfworker/json-schema everywhere else: an interpreter (no code generation, which Cloudflare
//   Workers, Vercel's edge runtime and pages with a strict CSP forbid), the validator the MCP
//   SDK uses on Workers, small, imported statically so every bundler sees it (and drops it when
//   nothing validates). Its results are mapped to ajv's messages and order
//   (interpreted-backend.ts); differential tests hold both to the same output.
// Why not zod's converter: zod 4.6's `z.fromJSONSchema` is documented as semi-experimental and
// throws on `not`, `if`/`then`/`else`, `dependentRequired`/`dependentSchemas` and `unevaluated*`
// — exactly the keywords MCP servers' schemas use, so such a tool would end up not enforced.
import { SchemaError } from '../errors/errors.js';
import type { JsonSchema } from './tool-definition.js';
import { isRecord } from '../util/is-record.js';
import { interpretedBackend } from './interpreted-backend.js';
import type { JsonSchemaBackend } from './json-schema-backend.js';

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

export type { JsonSchemaBackend, JsonSchemaDraft } from './json-schema-backend.js';

let registered: JsonSchemaBackend | null = null;
const compiled = new WeakMap<object, { backend: JsonSchemaBackend; validate: (value: unknown) => string[] }>();

/**
 * Makes `backend` the full validator (the Node entry registers ajv; `null` restores the
 * interpreter). Compiled schemas are kept per validator, so switching never mixes them.
 */
export function setJsonSchemaBackend(backend: JsonSchemaBackend | null): void {
  registered = backend;
}

/** The full validator in use: `'ajv'` (Node, Bun, Deno) or `'interpreted'` (@cfworker/json-schema). */
export function jsonSchemaBackendName(): string {
  return (registered ?? interpretedBackend).name;
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

/**
 * Compiles `schema` for full validation (cached per schema object) and returns its validator:
 * `[]` for a valid value, else short path-qualified messages. Throws {@link SchemaError} when
 * the schema cannot be compiled (bad regex, unresolvable `$ref`, …) or is cyclic.
 */
export function compileJsonSchema(schema: JsonSchema): (value: unknown) => string[] {
  const backend = registered ?? interpretedBackend;
  const hit = compiled.get(schema);
  if (hit !== undefined && hit.backend === backend) return hit.validate;
  const draft = draftOf(schema); // also rejects cyclic objects before a validator recurses into them
  const { $schema: _ignored, ...rest } = schema;
  let validate: (value: unknown) => string[];
  try {
    validate = backend.compile(rest, draft);
  } catch (cause) {
    throw new SchemaError(`JSON Schema cannot be compiled: ${(cause as Error).message}`, { cause });
  }
  compiled.set(schema, { backend, validate });
  return validate;
}

/**
 * Full JSON Schema validation of `value` (draft 2020-12, or draft-07 when the schema says so
 * or uses tuple `items`), as short path-qualified messages; `[]` when valid. Never mutates
 * `value`. Throws {@link SchemaError} for a cyclic or uncompilable schema.
 */
export function validateFullJsonSchema(schema: JsonSchema, value: unknown): string[] {
  return compileJsonSchema(schema)(value);
}
