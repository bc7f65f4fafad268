import type { z } from 'zod';
import type { JsonSchema } from '@nanobot/schema';
import { SchemaError } from '@nanobot/schema';
import { deepFreeze } from './deep-freeze.js';
import { zodToParametersSchema } from './params-bridge.js';

/**
 * A tool's parameters: a zod schema (arguments are then typed from it and parsed with it), a
 * JSON Schema object (MCP servers, plugins written without zod), or `null` for none.
 */
export type ToolParameters = z.ZodType | JsonSchema | null;

/** True for a zod 4 schema (as opposed to a JSON Schema object). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_zod' in value &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function'
  );
}

const EMPTY_OBJECT_SCHEMA: JsonSchema = deepFreeze({ type: 'object', properties: {} });

/**
 * The JSON Schema sent to the model for `parameters`, deep-frozen so no caller can change a
 * tool's contract by mutating what it was handed. `null`/`undefined` become an empty object schema
 * (providers reject `parameters: null`). Throws {@link SchemaError} for anything that is neither
 * a zod schema nor a JSON Schema object.
 */
export function toParametersJsonSchema(parameters: ToolParameters | undefined): JsonSchema {
  if (parameters === null || parameters === undefined) return EMPTY_OBJECT_SCHEMA;
  if (isZodSchema(parameters)) {
    try {
      return deepFreeze(zodToParametersSchema(parameters));
    } catch (err) {
      if (err instanceof SchemaError) throw err;
      throw new SchemaError(`cannot convert the zod parameters to JSON Schema: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  if (isZod3Schema(parameters)) {
    throw new SchemaError(
      'tool parameters need zod 4 or JSON Schema: this is a zod 3 schema; import z from "zod" version 4 (or "zod/v4")',
    );
  }
  if (typeof parameters !== 'object' || Array.isArray(parameters)) {
    throw new SchemaError(`tool parameters must be a zod schema or a JSON Schema object, got ${describe(parameters)}`);
  }
  let copy: JsonSchema;
  try {
    copy = structuredClone(parameters);
  } catch (err) {
    throw new SchemaError(`tool parameters are not plain JSON: ${(err as Error).message}`, { cause: err });
  }
  return deepFreeze(copy);
}

// A zod 3 schema has `_def` and `safeParse` but not zod 4's `_zod`; structuredClone would fail on
// its methods with an unhelpful "could not be cloned".
function isZod3Schema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '_def' in value && !('_zod' in value) && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

function describe(value: unknown): string {
  return Array.isArray(value) ? 'an array' : typeof value;
}
