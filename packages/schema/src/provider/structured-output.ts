import type { z } from 'zod';
import { NanobotError, SchemaError } from '../errors/errors.js';
import { validateFullJsonSchema } from '../json-schema/full-json-schema.js';
import type { ResponseFormat } from './provider.js';
import type { JsonSchema } from '../json-schema/tool-definition.js';
import { zodToJsonSchema } from '../json-schema/zod-to-tool-parameters.js';

/** The model's answer was not JSON matching the requested schema. `raw` is the text it sent. */
export class StructuredOutputError extends NanobotError {
  /** The answer as the model wrote it. */
  readonly raw: string;
  /** What was wrong: `not JSON: …`, or path-qualified schema violations. */
  readonly issues: string[];

  constructor(message: string, raw: string, issues: string[], options: { cause?: unknown } = {}) {
    super('STRUCTURED_OUTPUT_INVALID', message, options);
    this.raw = raw;
    this.issues = issues;
  }
}

/** What `toResponseFormat` accepts: a zod object schema or a JSON Schema object. */
export interface ResponseFormatInput {
  name: string;
  schema: z.ZodType | JsonSchema;
  description?: string;
  /** Default: true when the schema already meets OpenAI's strict rules, else false. */
  strict?: boolean;
}

function isZod(schema: unknown): schema is z.ZodType {
  return typeof schema === 'object' && schema !== null && typeof (schema as { safeParse?: unknown }).safeParse === 'function';
}

/**
 * Whether every object in `schema` lists all its properties as required and forbids extras:
 * OpenAI's strict mode rejects any other schema with a 400.
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (typeof schema !== 'object' || schema === null) return true;
  const node = schema as Record<string, unknown>;
  if (node['type'] === 'object' || node['properties'] !== undefined) {
    const props = Object.keys((node['properties'] as Record<string, unknown> | undefined) ?? {});
    const required = new Set(Array.isArray(node['required']) ? (node['required'] as unknown[]) : []);
    if (node['additionalProperties'] !== false || props.some((p) => !required.has(p))) return false;
  }
  return Object.values(node).every(isStrictCompatible);
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A `ResponseFormat` from a zod or JSON Schema object schema (zod through the converter tool
 * parameters use, from the output side). Throws `SchemaError` for a bad name or a schema that is not an object schema.
 */
export function toResponseFormat(input: ResponseFormatInput): ResponseFormat {
  if (!NAME.test(input.name)) throw new SchemaError(`responseFormat name must be 1-64 letters, digits, "_" or "-", got ${JSON.stringify(input.name)}`);
  // The answer is what parsing produces: the output view (objects closed, as strict mode wants).
  const schema = isZod(input.schema) ? zodToJsonSchema(input.schema, 'output') : input.schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || schema['type'] !== 'object') {
    throw new SchemaError('responseFormat schema must be an object schema ({"type": "object", …}).');
  }
  const format: ResponseFormat = { type: 'json_schema', name: input.name, schema, strict: input.strict ?? isStrictCompatible(schema) };
  if (input.description !== undefined) format.description = input.description;
  return format;
}

// Models sometimes wrap JSON in a Markdown fence even when asked for bare JSON.
const FENCE = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/;

/**
 * The answer text parsed as JSON and validated against `format.schema`. Throws
 * `StructuredOutputError` (carrying the raw text) when it is empty, not JSON, or off-schema.
 */
export function parseStructuredOutput(text: string | null | undefined, format: ResponseFormat): unknown {
  const raw = text ?? '';
  if (raw.trim() === '') throw new StructuredOutputError(`The model sent no answer for structured output "${format.name}".`, raw, ['empty answer']);
  let value: unknown;
  try {
    value = JSON.parse(FENCE.exec(raw)?.[1] ?? raw);
  } catch (cause) {
    const issue = `not JSON: ${(cause as Error).message}`;
    throw new StructuredOutputError(`The answer for structured output "${format.name}" is ${issue}`, raw, [issue], { cause });
  }
  const issues = validateFullJsonSchema(format.schema, value);
  if (issues.length > 0) throw new StructuredOutputError(`The answer for structured output "${format.name}" does not match its schema: ${issues.join('; ')}`, raw, issues);
  return value;
}
