/** Tool definitions and JSON Schema: builders, zod conversion, validation and the reference's parameter casts. */
export type { JsonSchema, ToolDefinition } from './tool-definition.js';
export { validateJsonSchemaValue } from './validate-json-schema-value.js';
export { castParams, castJsonSchemaValue } from './cast-params.js';
export { validateParams, assertToolParametersSchema } from './validate-params.js';
export { validateFullJsonSchema, needsFullValidation, compileJsonSchema, jsonSchemaBackendName } from './full-json-schema.js';
export {
  SchemaBuilder,
  StringSchema,
  IntegerSchema,
  NumberSchema,
  BooleanSchema,
  ArraySchema,
  ObjectSchema,
  schemaFragment,
  toolParametersSchema,
} from './schema-builders.js';
export type {
  SchemaLike,
  StringSchemaOptions,
  NumericSchemaOptions,
  BooleanSchemaOptions,
  ArraySchemaOptions,
  ObjectSchemaOptions,
  ToolParametersSchemaOptions,
} from './schema-builders.js';
export { zodToToolParameters } from './zod-to-tool-parameters.js';
export {
  DEFAULT_TOOL_TRAITS,
  DEFAULT_REREADABLE_OUTPUT,
  resolveToolTraits,
  toolTraitsFor,
  toolTraitsTable,
} from './tool-traits.js';
export type { ToolTraits, ToolTraitsDeclaration, ToolTraitsByName, RereadableOutput } from './tool-traits.js';
