// Where tools-core meets @nanobot/schema's JSON Schema helpers, in one place.
import type { z } from 'zod';
import { castParams, validateParams, zodToToolParameters, type JsonSchema } from '@nanobot/schema';

/** zod object schema → the JSON Schema the model sees (no `$schema`, no safe-integer bounds). */
export function zodToParametersSchema(schema: z.ZodType): JsonSchema {
  return zodToToolParameters(schema);
}

/** The reference's lenient casts (a list/dict for a string parameter is left for validation). */
export function castWithSchema(schema: JsonSchema, params: Record<string, unknown>): Record<string, unknown> {
  return castParams(schema, params);
}

/** The reference's validation messages, then full JSON Schema for keywords it ignored. */
export function validateWithSchema(schema: JsonSchema, params: Record<string, unknown>): string[] {
  return validateParams(schema, params);
}
