// The validator interface on its own, so the backends and the dispatcher import it without a circle.
import type { JsonSchema } from './tool-definition.js';

/** The JSON Schema drafts the validators are asked for. */
export type JsonSchemaDraft = '2020' | '07';

/**
 * A full JSON Schema validator. Contract: `compile` gets a schema without `$schema` (never
 * mutated) and its draft, may throw (any error: it becomes a {@link SchemaError}), and returns
 * a function giving `[]` for a valid value, else short path-qualified messages.
 */
export interface JsonSchemaBackend {
  readonly name: string;
  compile(schema: JsonSchema, draft: JsonSchemaDraft): (value: unknown) => string[];
}
