// Where tools-core meets @nanobot/schema's JSON Schema helpers. One file, so the rest of the
// package does not care which helper names schema exports.
import { z } from 'zod';
import type { JsonSchema } from '@nanobot/schema';

/** zod → JSON Schema for the model. TEMPORARY until @nanobot/schema exports its converter. */
export function zodToParametersSchema(schema: z.ZodType): JsonSchema {
  const out = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
  delete out.$schema;
  return out;
}

/** Lenient schema-driven casts. TEMPORARY pass-through until @nanobot/schema's castParams lands. */
export function castWithSchema(_schema: JsonSchema, params: Record<string, unknown>): Record<string, unknown> {
  return params;
}

/** Reference validation. TEMPORARY until @nanobot/schema's validateParams lands. */
export function validateWithSchema(_schema: JsonSchema, _params: Record<string, unknown>): string[] {
  return [];
}
