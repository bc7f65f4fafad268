import type { z } from 'zod';
import { SchemaError } from '../errors/errors.js';
import type { JsonSchema } from './tool-definition.js';

const SAFE_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    // zod writes the JS safe-integer range on every `.int()`; the model gains nothing from it.
    if ((key === 'minimum' || key === 'maximum') && typeof value === 'number' && SAFE_BOUNDS.has(value)) continue;
    out[key] = clean(value);
  }
  return out;
}

/**
 * JSON Schema of a zod schema, seen from `io` (`input`: what may be passed, defaults optional;
 * `output`: what parsing produces, objects closed), cleaned as for tool parameters. Throws
 * {@link SchemaError} when it cannot be represented.
 */
export function zodToJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  let json: unknown;
  try {
    // The schema's own method: no zod import here (it is the caller's zod, already loaded).
    json = (schema as unknown as { toJSONSchema(params: object): unknown }).toJSONSchema({ io, unrepresentable: 'throw' });
  } catch (cause) {
    throw new SchemaError(`zod schema cannot be turned into JSON Schema: ${(cause as Error).message}`, { cause });
  }
  return clean(json) as JsonSchema;
}

/**
 * JSON Schema for tool parameters declared as a zod object schema: what the model should
 * see for the call's input (`io: "input"`, so defaults make fields optional), without
 * `$schema` and without the safe-integer bounds zod adds to integers. Throws
 * {@link SchemaError} when the zod schema is not an object or cannot be represented.
 */
export function zodToToolParameters(schema: z.ZodType): JsonSchema {
  const out = zodToJsonSchema(schema, 'input');
  if (out['type'] !== 'object') {
    throw new SchemaError(`Tool parameters must be a zod object schema, got JSON Schema type ${JSON.stringify(out['type'] ?? null)}`);
  }
  return out;
}
