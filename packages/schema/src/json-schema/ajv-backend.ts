// ajv as the full validator: it compiles each schema to JavaScript (`new Function`), so it runs
// only where code generation is allowed, and it costs ~100 ms to import. This file imports no
// ajv value: the Node entry passes a loader that requires ajv on first use (src/node/).
import type { ValidateFunction } from 'ajv';
import type { JsonSchema } from './tool-definition.js';
import type { JsonSchemaBackend, JsonSchemaDraft } from './json-schema-backend.js';
import { describeIssues, type SchemaIssue } from './schema-issues.js';

/** The slice of an `Ajv` instance we use. */
export interface AjvLike {
  compile(schema: unknown): ValidateFunction;
}

/** ajv's options for tool arguments: every error, lenient about unknown keywords, never touching the data. */
export const AJV_OPTIONS = {
  allErrors: true,
  strict: false,
  validateSchema: false,
  addUsedSchema: false,
  // Never touch the caller's data: no defaults, no coercion, no removal.
  useDefaults: false,
  coerceTypes: false,
  removeAdditional: false,
} as const;

/**
 * The ajv validator, with `ajvFor(draft)` giving the (cached) ajv instance of a draft, formats
 * added. Contract: `ajvFor` may throw (the schema then fails to compile with that cause).
 */
export function ajvBackend(ajvFor: (draft: JsonSchemaDraft) => AjvLike): JsonSchemaBackend {
  return {
    name: 'ajv',
    compile(schema: JsonSchema, draft: JsonSchemaDraft) {
      const validate = ajvFor(draft).compile(schema);
      return (value) => (validate(value) ? [] : describeIssues((validate.errors ?? []) as SchemaIssue[], value));
    },
  };
}
