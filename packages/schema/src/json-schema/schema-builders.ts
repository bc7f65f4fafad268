import { SchemaError } from '../errors/errors.js';
import { pythonTypeName } from '../python/python-repr.js';
import type { JsonSchema } from './tool-definition.js';
import { validateJsonSchemaValue } from './validate-json-schema-value.js';

/** Anything that can render itself as a JSON Schema fragment. */
export interface SchemaLike {
  toJsonSchema(): JsonSchema;
}

/** Base of the schema builders: renders a fragment and validates values against it. */
export abstract class SchemaBuilder implements SchemaLike {
  /** The JSON Schema fragment; a fresh object on every call (callers may mutate it). */
  abstract toJsonSchema(): JsonSchema;

  /** Validates `value` against this fragment with the reference's messages; `[]` when valid. */
  validateValue(value: unknown, path = ''): string[] {
    return validateJsonSchemaValue(value, this.toJsonSchema(), path);
  }
}

function isSchemaLike(value: unknown): value is SchemaLike {
  return typeof value === 'object' && value !== null && typeof (value as { toJsonSchema?: unknown }).toJsonSchema === 'function';
}

/**
 * A builder's JSON Schema, or a plain schema object as given (reference `Schema.fragment`).
 * Throws {@link SchemaError} (`Expected schema object or dict, got int`) for anything else.
 */
export function schemaFragment(value: SchemaLike | JsonSchema): JsonSchema {
  if (isSchemaLike(value)) return value.toJsonSchema();
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  throw new SchemaError(`Expected schema object or dict, got ${pythonTypeName(value)}`);
}

function typeOf(name: string, nullable: boolean | undefined): string | string[] {
  return nullable ? [name, 'null'] : name;
}

function withDescription(description: string | undefined, options: { description?: string | undefined } | undefined): string | undefined {
  return options?.description ?? description;
}

/** Options of {@link StringSchema}. */
export interface StringSchemaOptions {
  description?: string | undefined;
  minLength?: number;
  maxLength?: number;
  enum?: readonly string[];
  nullable?: boolean;
}

/** `{"type": "string", …}`; lengths count code points when validated. */
export class StringSchema extends SchemaBuilder {
  private readonly options: StringSchemaOptions;
  constructor(description?: string | StringSchemaOptions, options: StringSchemaOptions = {}) {
    super();
    this.options = typeof description === 'object' ? description : { ...options, description: withDescription(description, options) };
  }
  toJsonSchema(): JsonSchema {
    const o = this.options;
    const out: JsonSchema = { type: typeOf('string', o.nullable) };
    if (o.description) out['description'] = o.description;
    if (o.minLength !== undefined) out['minLength'] = o.minLength;
    if (o.maxLength !== undefined) out['maxLength'] = o.maxLength;
    if (o.enum !== undefined) out['enum'] = [...o.enum];
    return out;
  }
}

/** Options of {@link IntegerSchema} and {@link NumberSchema}. */
export interface NumericSchemaOptions {
  description?: string | undefined;
  minimum?: number;
  maximum?: number;
  enum?: readonly number[];
  nullable?: boolean;
}

abstract class NumericSchema extends SchemaBuilder {
  private readonly options: NumericSchemaOptions;
  protected abstract readonly typeName: 'integer' | 'number';
  constructor(description?: string | NumericSchemaOptions, options: NumericSchemaOptions = {}) {
    super();
    this.options = typeof description === 'object' ? description : { ...options, description: withDescription(description, options) };
  }
  toJsonSchema(): JsonSchema {
    const o = this.options;
    const out: JsonSchema = { type: typeOf(this.typeName, o.nullable) };
    if (o.description) out['description'] = o.description;
    if (o.minimum !== undefined) out['minimum'] = o.minimum;
    if (o.maximum !== undefined) out['maximum'] = o.maximum;
    if (o.enum !== undefined) out['enum'] = [...o.enum];
    return out;
  }
}

/** `{"type": "integer", …}`. */
export class IntegerSchema extends NumericSchema {
  protected readonly typeName = 'integer' as const;
}

/** `{"type": "number", …}`. */
export class NumberSchema extends NumericSchema {
  protected readonly typeName = 'number' as const;
}

/** Options of {@link BooleanSchema}. */
export interface BooleanSchemaOptions {
  description?: string | undefined;
  default?: boolean;
  nullable?: boolean;
}

/** `{"type": "boolean", …}`. */
export class BooleanSchema extends SchemaBuilder {
  private readonly options: BooleanSchemaOptions;
  constructor(description?: string | BooleanSchemaOptions, options: BooleanSchemaOptions = {}) {
    super();
    this.options = typeof description === 'object' ? description : { ...options, description: withDescription(description, options) };
  }
  toJsonSchema(): JsonSchema {
    const o = this.options;
    const out: JsonSchema = { type: typeOf('boolean', o.nullable) };
    if (o.description) out['description'] = o.description;
    if (o.default !== undefined) out['default'] = o.default;
    return out;
  }
}

/** Options of {@link ArraySchema}. */
export interface ArraySchemaOptions {
  description?: string;
  minItems?: number;
  maxItems?: number;
  nullable?: boolean;
}

/** `{"type": "array", "items": …}`; `items` defaults to a plain string schema. */
export class ArraySchema extends SchemaBuilder {
  private readonly items: SchemaLike | JsonSchema;
  private readonly options: ArraySchemaOptions;
  constructor(items: SchemaLike | JsonSchema = new StringSchema(), options: ArraySchemaOptions = {}) {
    super();
    schemaFragment(items); // fail at construction, not at render time
    this.items = items;
    this.options = options;
  }
  toJsonSchema(): JsonSchema {
    const o = this.options;
    const out: JsonSchema = { type: typeOf('array', o.nullable), items: structuredClone(schemaFragment(this.items)) };
    if (o.description) out['description'] = o.description;
    if (o.minItems !== undefined) out['minItems'] = o.minItems;
    if (o.maxItems !== undefined) out['maxItems'] = o.maxItems;
    return out;
  }
}

/** Options of {@link ObjectSchema}. */
export interface ObjectSchemaOptions {
  properties?: Record<string, SchemaLike | JsonSchema>;
  required?: readonly string[];
  description?: string;
  /** `false` rejects unknown keys, a schema types them; `null`/absent omits the keyword. */
  additionalProperties?: boolean | SchemaLike | JsonSchema | null;
  nullable?: boolean;
}

/** `{"type": "object", "properties": …}` (`properties` always present, `required` only if non-empty). */
export class ObjectSchema extends SchemaBuilder {
  private readonly options: ObjectSchemaOptions;
  constructor(options: ObjectSchemaOptions = {}) {
    super();
    for (const value of Object.values(options.properties ?? {})) schemaFragment(value);
    const additional = options.additionalProperties;
    if (additional !== undefined && additional !== null && typeof additional !== 'boolean') schemaFragment(additional);
    this.options = options;
  }
  toJsonSchema(): JsonSchema {
    const o = this.options;
    const properties: JsonSchema = {};
    for (const [name, value] of Object.entries(o.properties ?? {})) properties[name] = structuredClone(schemaFragment(value));
    const out: JsonSchema = { type: typeOf('object', o.nullable), properties };
    if (o.required !== undefined && o.required.length > 0) out['required'] = [...o.required];
    if (o.description) out['description'] = o.description;
    const additional = o.additionalProperties;
    if (additional !== undefined && additional !== null) {
      out['additionalProperties'] = typeof additional === 'boolean' ? additional : structuredClone(schemaFragment(additional));
    }
    return out;
  }
}

/** Options of {@link toolParametersSchema}. */
export interface ToolParametersSchemaOptions {
  properties?: Record<string, SchemaLike | JsonSchema>;
  required?: readonly string[];
  description?: string;
  /** Defaults to `false` so misspelled argument names are reported; `null` omits the keyword. */
  additionalProperties?: boolean | SchemaLike | JsonSchema | null;
}

/**
 * Root parameters schema of a tool (reference `tool_parameters_schema`): an object schema
 * that defaults to `additionalProperties: false`, so `unexpected parameter X` reaches the model.
 */
export function toolParametersSchema(options: ToolParametersSchemaOptions = {}): JsonSchema {
  const additionalProperties = 'additionalProperties' in options ? options.additionalProperties : false;
  return new ObjectSchema({ ...options, additionalProperties }).toJsonSchema();
}
