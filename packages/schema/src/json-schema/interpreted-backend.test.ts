// The interpreted validator (Workers, edge, browsers) against ajv (Node, Bun, Deno): for every
// schema and value, the same messages in the same order — the model reads the same text
// whichever runtime validated its arguments.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '@nanobot-internal/test-support';
import { nodeAjvBackend } from '../node/node-sources.js';
import { interpretedBackend } from './interpreted-backend.js';
import { compileJsonSchema, setJsonSchemaBackend, validateFullJsonSchema, type JsonSchemaDraft } from './full-json-schema.js';
import { SchemaError } from '../errors/errors.js';
import type { JsonSchema } from './tool-definition.js';

/** Messages per value, or the compile error: both validators refuse the same schemas. */
function outcomes(backend: typeof interpretedBackend, schema: JsonSchema, values: unknown[], draft: JsonSchemaDraft): string[][] | { compileError: string } {
  let validate: (value: unknown) => string[];
  try {
    validate = backend.compile(schema, draft);
  } catch (error) {
    return { compileError: (error as Error).message };
  }
  return values.map((value) => validate(value));
}

function bothAll(schema: JsonSchema, values: unknown[], draft: JsonSchemaDraft = '2020') {
  return { ajv: outcomes(nodeAjvBackend, schema, values, draft), interpreted: outcomes(interpretedBackend, schema, values, draft) };
}

function both(schema: JsonSchema, value: unknown, draft: JsonSchemaDraft = '2020') {
  const { ajv, interpreted } = bothAll(schema, [value], draft);
  return { ajv: Array.isArray(ajv) ? ajv[0] : ajv, interpreted: Array.isArray(interpreted) ? interpreted[0] : interpreted };
}

const CASES: [string, JsonSchema, unknown[]][] = [
  [
    'the harness schema: pattern, format, oneOf of consts, required, additionalProperties',
    {
      type: 'object',
      properties: { path: { type: 'string', pattern: '^/[a-z/]+$' }, when: { type: 'string', format: 'date-time' }, mode: { oneOf: [{ const: 'read' }, { const: 'write' }] } },
      required: ['path'],
      additionalProperties: false,
    },
    [{ path: '/tmp/x', when: '2026-11-01T10:00:00Z', mode: 'read' }, { path: 'relative', when: 'yesterday', mode: 'append' }, { mode: 'write', extra: 1 }, { path: 5, extra: 1, other: 2 }],
  ],
  [
    '$ref, numbers, arrays',
    { $defs: { pos: { type: 'integer', minimum: 1 } }, type: 'object', properties: { a: { $ref: '#/$defs/pos' }, b: { type: 'array', items: { type: 'string', maxLength: 2 }, minItems: 2, uniqueItems: true } } },
    [{ a: 0, b: ['abc', 'abc'] }, { a: 'x' }, { a: 2.5, b: ['a'] }, { b: ['a', 'b', 'a'] }],
  ],
  ['anyOf and not', { anyOf: [{ type: 'string' }, { type: 'number' }], not: { const: 3 } }, [true, 3, 'x', null]],
  ['if / then / else', { if: { properties: { k: { const: 1 } } }, then: { required: ['x'] }, else: { required: ['y'] } }, [{ k: 1 }, { k: 2 }, { k: 1, x: 0 }]],
  [
    'type checked in its group or first',
    { type: 'string', minLength: 2, enum: ['aa', 'bbb'], minimum: 3 },
    ['a', 5, 1, 'ccc', null],
  ],
  ['integer type, multipleOf, exclusive bounds', { type: 'integer', multipleOf: 3, exclusiveMinimum: 0, exclusiveMaximum: 10 }, [0, 10, 4, 2.5, 'x', 9]],
  [
    'dependentRequired, propertyNames, min/maxProperties',
    { type: 'object', dependentRequired: { a: ['b', 'c'] }, propertyNames: { maxLength: 3 }, minProperties: 2, maxProperties: 3 },
    [{ a: 1 }, { a: 1, b: 2 }, { long_name: 1, x: 2 }, { a: 1, b: 1, c: 1, d: 1 }],
  ],
  [
    'prefixItems, items false, contains',
    { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, contains: { const: 'x' } },
    [['x', 1], ['a', 'b', 'c'], [], [1]],
  ],
  ['tuple items (draft-07) and additionalItems', { type: 'array', items: [{ type: 'string' }], additionalItems: false }, [['a', 'b'], [1], []]],
  ['nested objects and arrays of objects', { type: 'object', properties: { list: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'], additionalProperties: false } } } }, [{ list: [{ id: 1 }, {}, { id: 'x', y: 1 }] }]],
  ['allOf, boolean subschemas', { allOf: [{ type: 'object' }, { required: ['a'] }], properties: { never: false, any: true } }, [{}, { a: 1, never: 1 }, 'x']],
  ['formats', { type: 'object', properties: { d: { format: 'date' }, e: { format: 'email' }, u: { format: 'uri' }, i: { format: 'ipv4' }, id: { format: 'uuid' } } }, [{ d: '2026-02-30', e: 'nobody', u: 'not a uri', i: '300.1.1.1', id: 'x' }, { d: '2026-02-28', e: 'a@b.co', u: 'https://x.y/z', i: '10.0.0.1', id: '123e4567-e89b-12d3-a456-426614174000' }]],
  ['keys that need escaping', { type: 'object', properties: { 'a/b': { type: 'string' }, 'ü ~x': { type: 'number' } }, required: ['c d'] }, [{ 'a/b': 1, 'ü ~x': 'y' }]],
];

describe('interpreted validator = ajv', () => {
  it.each(CASES)('%s', (_name, schema, values) => {
    const draft: JsonSchemaDraft = JSON.stringify(schema).includes('"items":[') ? '07' : '2020';
    for (const value of values) {
      const { ajv, interpreted } = both(schema, value, draft);
      expect({ value, messages: interpreted }).toEqual({ value, messages: ajv });
    }
  });

  it('on generated schemas and values', () => {
    const leaf = fc.oneof(
      fc.constantFrom<JsonSchema>({ type: 'string' }, { type: 'integer' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }, { type: ['string', 'null'] }, { type: 'object' }, { type: 'array' }),
      fc.record({ type: fc.constant('string'), minLength: fc.integer({ min: 0, max: 3 }), maxLength: fc.integer({ min: 2, max: 5 }), pattern: fc.constantFrom('^a', 'b$', '^[0-9]+$') }, { requiredKeys: ['type'] }),
      fc.record({ type: fc.constantFrom('integer', 'number'), minimum: fc.integer({ min: -2, max: 2 }), maximum: fc.integer({ min: 0, max: 5 }), exclusiveMinimum: fc.integer({ min: -3, max: 0 }), multipleOf: fc.constantFrom(1, 2, 0.5) }, { requiredKeys: [] }),
      fc.record({ type: fc.constant('string'), format: fc.constantFrom('date', 'date-time', 'time', 'email', 'ipv4', 'ipv6', 'uuid', 'uri', 'hostname', 'duration') }),
      fc.record({ const: fc.constantFrom('a', 1, null, true) }),
      fc.record({ enum: fc.constantFrom(['a', 'b'], [1, 2, 3], [null, 'x']) }),
    );
    const node: fc.Arbitrary<JsonSchema> = fc.letrec<{ node: JsonSchema }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.record(
          {
            type: fc.constant('object'),
            properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('node'), { maxKeys: 3 }),
            required: fc.subarray(['a', 'b', 'c', 'd']),
            additionalProperties: fc.oneof(fc.constant(false), tie('node')),
            minProperties: fc.integer({ min: 0, max: 2 }),
          },
          { requiredKeys: ['type'] },
        ),
        fc.record({ type: fc.constant('array'), items: tie('node'), minItems: fc.integer({ min: 0, max: 2 }), maxItems: fc.integer({ min: 1, max: 3 }), uniqueItems: fc.boolean() }, { requiredKeys: ['type'] }),
        // prefixItems and contains apart: ajv gets their combination under `if` wrong (below).
        fc.record({ prefixItems: fc.array(tie('node'), { minLength: 1, maxLength: 2 }), items: fc.oneof(fc.constant(false), tie('node')) }, { requiredKeys: ['prefixItems'] }),
        fc.record({ items: tie('node'), contains: tie('node'), minContains: fc.integer({ min: 0, max: 2 }), maxContains: fc.integer({ min: 1, max: 3 }) }, { requiredKeys: ['contains'] }),
        fc.record(
          {
            patternProperties: fc.dictionary(fc.constantFrom('^a', 'b'), tie('node'), { maxKeys: 2 }),
            propertyNames: fc.record({ maxLength: fc.integer({ min: 1, max: 2 }), pattern: fc.constantFrom('^[a-c]', 'e') }, { requiredKeys: [] }),
            dependentRequired: fc.dictionary(fc.constantFrom('a', 'b'), fc.subarray(['c', 'd', 'e'], { minLength: 1 }), { maxKeys: 2 }),
            maxProperties: fc.integer({ min: 1, max: 3 }),
          },
          { requiredKeys: [] },
        ),
        fc.record({ $ref: fc.constant('#/$defs/x'), minProperties: fc.constant(1) }, { requiredKeys: ['$ref'] }),
        fc.record({ anyOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
        fc.record({ oneOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
        fc.record({ allOf: fc.array(tie('node'), { minLength: 1, maxLength: 2 }) }),
        fc.record({ not: tie('node') }),
        fc.record({ if: tie('node'), then: tie('node'), else: tie('node') }, { requiredKeys: ['if'] }),
      ),
    })).node;
    // `#/$defs/x` names a schema at the root, as tools' schemas keep their definitions.
    const schema = fc.tuple(node, leaf).map(([s, x]) => ({ ...s, $defs: { x } }));
    const value = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('a', 'b', 'ab', 'abc', '123', '', 0, 1, 2, 3, -1, 0.5, 2.5, true, false, null),
        fc.constantFrom('2026-02-28', '2026-02-30', '2026-11-01T10:00:00Z', '2026-11-01 10:00:00', '10:00:00Z', '25:00:00Z', 'a@b.co', 'a@b', '10.0.0.1', '300.1.1.1', '::1', '123e4567-e89b-12d3-a456-426614174000', 'https://x.y/z', 'not a uri', 'mailto:a@b.co', 'example.com', '-bad-.com', 'P1D', 'PT', 'P1Y2M'),
        fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e'), tie('v'), { maxKeys: 4 }),
        fc.array(tie('v'), { maxLength: 4 }),
      ),
    })).v;
    fc.assert(
      fc.property(schema, fc.array(value, { minLength: 1, maxLength: 4 }), (s, values) => {
        // As JSON, which tool arguments are (fast-check's dictionaries have no prototype).
        const json = JSON.parse(JSON.stringify(values)) as unknown[];
        const { ajv, interpreted } = bothAll(s, json);
        expect({ schema: s, values: json, messages: interpreted }).toEqual({ schema: s, values: json, messages: ajv });
      }),
      { numRuns: runs(300, 5000) },
    );
  }, 600_000);
});

describe('where ajv is wrong, the interpreted validator follows the specification', () => {
  it('an empty array fails `contains` inside `if` next to `prefixItems` (ajv 8.20 lets it pass)', () => {
    const schema: JsonSchema = { if: { prefixItems: [{ type: 'string' }], contains: { type: 'string' } }, else: { type: 'string' } };
    expect(both(schema, [])).toEqual({ ajv: [], interpreted: ['parameter should be string'] });
    // Without prefixItems ajv agrees: contains fails on [], so `else` applies.
    expect(both({ if: { contains: { type: 'string' } }, else: { type: 'string' } }, [])).toEqual({ ajv: ['parameter should be string'], interpreted: ['parameter should be string'] });
  });
});

describe('the interpreted validator as the full validator', () => {
  it('refuses what ajv cannot compile, with the same SchemaError', () => {
    try {
      for (const backend of [interpretedBackend, nodeAjvBackend]) {
        setJsonSchemaBackend(backend);
        expect(() => compileJsonSchema({ type: 'object', properties: { a: { pattern: '(' } } })).toThrow(SchemaError);
        expect(() => compileJsonSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })).toThrow(/can't resolve reference #\/\$defs\/missing/);
      }
    } finally {
      setJsonSchemaBackend(nodeAjvBackend);
    }
  });

  it('never mutates the schema or the value, and keeps compiled schemas per validator', () => {
    const schema: JsonSchema = { type: 'object', $defs: { s: { type: 'string' } }, properties: { a: { $ref: '#/$defs/s' } } };
    const value = { a: 1 };
    const before = JSON.stringify({ schema, value, keys: Object.getOwnPropertyNames(schema) });
    try {
      setJsonSchemaBackend(interpretedBackend);
      expect(validateFullJsonSchema(schema, value)).toEqual(['a should be string']);
      setJsonSchemaBackend(nodeAjvBackend);
      expect(validateFullJsonSchema(schema, value)).toEqual(['a should be string']);
    } finally {
      setJsonSchemaBackend(nodeAjvBackend);
    }
    expect(JSON.stringify({ schema, value, keys: Object.getOwnPropertyNames(schema) })).toBe(before);
  });
});
