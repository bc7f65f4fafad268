import { describe, expect, it } from 'vitest';
import { castParams } from './cast-params.js';
import { SchemaError } from '../errors/errors.js';
import {
  ArraySchema,
  BooleanSchema,
  IntegerSchema,
  NumberSchema,
  ObjectSchema,
  StringSchema,
  schemaFragment,
  toolParametersSchema,
  type SchemaLike,
} from './schema-builders.js';
import type { JsonSchema } from './tool-definition.js';
import { validateJsonSchemaValue } from './validate-json-schema-value.js';
import { deepFreeze, loadCases, type ConformanceCase } from '@nanobot-internal/test-support';

const isAmbiguous = (c: ConformanceCase): boolean => (Array.isArray(c.notes) ? c.notes : [c.notes ?? '']).includes('float_int_ambiguity');

/** Encodes non-finite numbers the way the fixtures do. */
function encode(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) =>
      typeof v === 'number' && !Number.isFinite(v) ? { $float: Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity' } : v,
    ),
  );
}

/** Deliberate differences from the reference, with the reason (the README lists them). */
const CAST_DEVIATIONS: Record<string, [unknown, string]> = {
  read_file__24: [{ path: ['a', 'b'] }, 'lists are not stringified into Python repr for string params; validation rejects them'],
  read_file__25: [{ path: { p: 1 } }, 'dicts are not stringified into Python repr for string params; validation rejects them'],
  exec__08: [{ command: ['ls', '-la'] }, "a command list must not run as the text \"['ls', '-la']\""],
};


const VALIDATE_DEVIATIONS: Record<string, [unknown, string]> = {
  validate_022: [[], 'the reference was given a Python tuple, which is not a list; JSON has only arrays'],
  // Python tells 1.0 from 1; after JSON.parse JS holds one number (JSON Schema also counts 1.0
  // as an integer), so 1.0 is a valid integer and a bound of 4.0 prints as 4.
  validate_001: [[], 'float_int_ambiguity: 1.0 is the integer 1 in JS and JSON Schema, so it is accepted'],
  validate_035: [['m must be <= 4'], 'float_int_ambiguity: the bound 4.0 is the number 4 in JS and prints as 4'],
};

describe('tool_calls/cast_params conformance', () => {
  const cases = loadCases('tool_calls/cast_params.json');
  it(`runs every case (${cases.length})`, () => {
    // float_int_ambiguity cases all match here (3.0 and 3 print alike in the expectations).
    const tally = { passed: 0, deviations: 0 };
    const failures: string[] = [];
    for (const c of cases) {
      const schema = deepFreeze(structuredClone(c.config['parameters'] as JsonSchema));
      const params = deepFreeze(structuredClone(c.input['params'] as Record<string, unknown>));
      const got = encode(castParams(schema, params));
      if (c.name in CAST_DEVIATIONS) {
        tally.deviations++;
        expect(got, c.name).toEqual(CAST_DEVIATIONS[c.name]![0]);
        expect(got).not.toEqual(c.expected);
        continue;
      }
      if (JSON.stringify(got) === JSON.stringify(encode(c.expected))) {
        tally.passed++;
        continue;
      }
      failures.push(`${c.name}: got ${JSON.stringify(got)} expected ${JSON.stringify(c.expected)}`);
    }
    expect(failures).toEqual([]);
    expect(tally.passed + tally.deviations).toBe(cases.length);
  });
});

describe('castParams: number text as Python reads it', () => {
  it('casts only what int() and float() accept: no U+FEFF, no U+001C–U+001F around the number', () => {
    const schema: JsonSchema = { type: 'object', properties: { i: { type: 'integer' }, f: { type: 'number' } } };
    expect(castParams(schema, { i: '\u3000 7\u0085', f: '\t2.5 ' })).toEqual({ i: 7, f: 2.5 });
    expect(castParams(schema, { i: '\ufeff7', f: '2.5\ufeff' })).toEqual({ i: '\ufeff7', f: '2.5\ufeff' });
    expect(castParams(schema, { i: '\x1c7', f: '2.5\x1f' })).toEqual({ i: '\x1c7', f: '2.5\x1f' });
  });
});

describe('tool_calls/validate_json_schema_value conformance', () => {
  const cases = loadCases('tool_calls/validate_json_schema_value.json');
  it(`runs every case (${cases.length})`, () => {
    const tally = { passed: 0, deviations: 0 };
    const failures: string[] = [];
    for (const c of cases) {
      const value = deepFreeze(structuredClone(c.input['value']));
      const schema = deepFreeze(structuredClone(c.input['schema'] as JsonSchema));
      const got = validateJsonSchemaValue(value, schema, c.input['path'] as string);
      if (c.name in VALIDATE_DEVIATIONS) {
        tally.deviations++;
        expect(got, c.name).toEqual(VALIDATE_DEVIATIONS[c.name]![0]);
        continue;
      }
      if (JSON.stringify(got) === JSON.stringify(c.expected)) tally.passed++;
      else failures.push(`${c.name}: got ${JSON.stringify(got)} expected ${JSON.stringify(c.expected)}`);
    }
    expect(failures).toEqual([]);
    expect(tally.passed + tally.deviations).toBe(cases.length);
    expect(isAmbiguous(cases.find((c) => c.name === 'validate_001')!)).toBe(true);
  });
});

/** Builds the Schema object a fixture's constructor string describes, e.g. "IntegerSchema(minimum=1)". */
function fromPython(spec: unknown): SchemaLike | JsonSchema {
  if (typeof spec !== 'string') return spec as JsonSchema;
  const known: Record<string, SchemaLike> = {
    'IntegerSchema(minimum=1)': new IntegerSchema({ minimum: 1 }),
    'StringSchema()': new StringSchema(),
    'NumberSchema()': new NumberSchema(),
    "StringSchema('query')": new StringSchema('query'),
  };
  const schema = known[spec];
  if (!schema) throw new Error(`unknown constructor spelling ${spec}`);
  return schema;
}

function camel(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) out[k.replace(/_([a-z])/g, (_m, ch: string) => ch.toUpperCase())] = v;
  return out;
}

function build(name: string, args: Record<string, unknown>): unknown {
  const o = camel(args);
  const kind = name.replace(/^schema__/, '');
  if (kind.startsWith('string_')) return new StringSchema(o).toJsonSchema();
  if (kind.startsWith('integer_')) return new IntegerSchema(o).toJsonSchema();
  if (kind.startsWith('number_')) return new NumberSchema(o).toJsonSchema();
  if (kind.startsWith('boolean_')) return new BooleanSchema(o).toJsonSchema();
  if (kind.startsWith('array_')) {
    const { items, ...rest } = o;
    return new ArraySchema(items === undefined ? undefined : fromPython(items), rest).toJsonSchema();
  }
  const properties = Object.fromEntries(Object.entries((o['properties'] ?? {}) as Record<string, unknown>).map(([k, v]) => [k, fromPython(v)]));
  if (kind.startsWith('object_')) return new ObjectSchema({ ...o, properties } as never).toJsonSchema();
  if (kind.startsWith('tool_parameters_schema')) return toolParametersSchema({ ...o, properties } as never);
  if (kind === 'fragment_bad_type') return schemaFragment(o['value'] as never);
  throw new Error(`unmapped case ${name}`);
}

describe('tool_calls/definitions conformance (schema builders)', () => {
  const cases = loadCases('tool_calls/definitions.json');
  const builderCases = cases.filter((c) => c.fn === 'Schema.to_json_schema');
  // get_definitions_* pin ToolRegistry ordering: they run in @nanobot/registry's tests.
  const registryCases = cases.filter((c) => c.fn === 'ToolRegistry.get_definitions');
  it(`runs every schema-builder case (${builderCases.length}; ${registryCases.length} registry cases belong to @nanobot/registry)`, () => {
    expect(builderCases.length + registryCases.length).toBe(cases.length);
    for (const c of builderCases) {
      const args = c.input['constructor'] as Record<string, unknown>;
      if (c.raised) {
        // Reference: TypeError; ours: SchemaError with the same message.
        const message = (c.expected as { error: string }).error.replace(/^\w+: /, '');
        expect(() => build(c.name, args), c.name).toThrow(SchemaError);
        expect(() => build(c.name, args), c.name).toThrow(message);
        continue;
      }
      expect(JSON.stringify(build(c.name, args)), c.name).toBe(JSON.stringify(c.expected));
    }
  });
});
