import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { castParams } from './cast-params.js';
import { SchemaError } from '../errors/errors.js';
import { IntegerSchema, StringSchema, toolParametersSchema } from './schema-builders.js';
import type { JsonSchema } from './tool-definition.js';
import { assertToolParametersSchema, validateParams } from './validate-params.js';
import { zodToToolParameters } from './zod-to-tool-parameters.js';
import { deepFreeze } from '@nanobot-internal/test-support';

describe('validateParams', () => {
  const readFile: JsonSchema = deepFreeze({
    type: 'object',
    properties: { path: { type: 'string', minLength: 1 }, offset: { type: 'integer', minimum: 1 } },
    required: ['path'],
    additionalProperties: false,
  });

  it('reports the reference messages', () => {
    expect(validateParams(readFile, {})).toEqual(['missing required path']);
    expect(validateParams(readFile, { path: 'a', offset: 0, x: 1 })).toEqual(['offset must be >= 1', 'unexpected parameter x']);
    expect(validateParams(readFile, ['a'])).toEqual(['parameters must be an object, got list']);
    expect(validateParams(null, { anything: 1 })).toEqual([]);
    expect(validateParams({ properties: { a: { type: 'integer' } }, required: ['a'] }, {})).toEqual(['missing required a']);
  });

  it('throws a typed error for unusable schemas', () => {
    expect(() => validateParams({ type: 'array', items: { type: 'string' } }, { a: 1 })).toThrow(SchemaError);
    expect(() => validateParams({ type: 'array' }, {})).toThrow("Schema must be object type, got 'array'");
    expect(() => validateParams(5 as unknown as JsonSchema, {})).toThrow(SchemaError);
    const cyclic: JsonSchema = { type: 'object', properties: {} };
    (cyclic['properties'] as JsonSchema)['self'] = cyclic;
    expect(() => validateParams(cyclic, { self: { self: {} } })).toThrow(SchemaError);
    expect(() => assertToolParametersSchema(cyclic)).toThrow(SchemaError);
    const cyclicFull: JsonSchema = { type: 'object', properties: { a: { anyOf: [] } } };
    ((cyclicFull['properties'] as JsonSchema)['a'] as { anyOf: unknown[] }).anyOf.push(cyclicFull);
    expect(() => assertToolParametersSchema(cyclicFull)).toThrow(SchemaError);
    expect(() => assertToolParametersSchema({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } })).toThrow(SchemaError);
    expect(() => assertToolParametersSchema('x')).toThrow(SchemaError);
    expect(() => castParams([] as unknown as JsonSchema, {})).toThrow(SchemaError);
    expect(() => castParams(cyclic, { self: { self: {} } })).toThrow(SchemaError);
    expect(castParams(null, { a: '1' })).toEqual({ a: '1' });
  });

  it('enforces what the mini validator ignores (anyOf, oneOf, $ref, const, pattern, format, not, if/then)', () => {
    const schema: JsonSchema = deepFreeze({
      type: 'object',
      $defs: { id: { type: 'string', pattern: '^[a-z]+$' } },
      properties: {
        id: { $ref: '#/$defs/id' },
        mode: { const: 'fast' },
        target: { anyOf: [{ type: 'integer' }, { type: 'string', format: 'email' }] },
        one: { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 0 }] },
        flag: { not: { const: true } },
        kind: { type: 'string' },
        size: { type: 'integer' },
      },
      if: { properties: { kind: { const: 'big' } }, required: ['kind'] },
      then: { required: ['size'] },
    });
    expect(validateParams(schema, { id: 'abc', mode: 'fast', target: 3, one: 1.5, flag: false })).toEqual([]);
    expect(validateParams(schema, { id: 'ABC' })).toEqual(['id must match pattern "^[a-z]+$"']);
    expect(validateParams(schema, { mode: 'slow' })).toEqual(['mode must be "fast"']);
    expect(validateParams(schema, { target: 'not-an-email' })).toEqual(['target must match a schema in anyOf']);
    expect(validateParams(schema, { one: 2 })).toEqual(['one must match exactly one schema in oneOf']);
    expect(validateParams(schema, { flag: true })).toEqual(['flag must NOT be valid']);
    expect(validateParams(schema, { kind: 'big' })).toEqual(['missing required size']);
  });

  it('accepts any member of a union type (deviation: the reference checks only the first)', () => {
    const schema: JsonSchema = { type: 'object', properties: { v: { type: ['integer', 'string'] } } };
    expect(validateParams(schema, { v: 'x' })).toEqual([]);
    expect(validateParams(schema, { v: 1 })).toEqual([]);
    expect(validateParams(schema, { v: true })).toEqual(['v should be integer or string']);
    expect(castParams(schema, { v: '5' })).toEqual({ v: '5' });
    expect(castParams({ type: 'object', properties: { v: { type: ['integer', 'boolean'] } } }, { v: '5' })).toEqual({ v: 5 });
  });

  it('tuple items (draft-07 style) are validated too', () => {
    const schema: JsonSchema = { type: 'object', properties: { p: { type: 'array', items: [{ type: 'integer' }, { type: 'string' }] } } };
    expect(validateParams(schema, { p: [1, 'a'] })).toEqual([]);
    expect(validateParams(schema, { p: ['a', 1] })).toEqual(['p[0] should be integer', 'p[1] should be string']);
  });
});

describe('null and nullable (reference §D 84, 86, 87)', () => {
  const schema: JsonSchema = deepFreeze({
    type: 'object',
    properties: {
      nullableKeyword: { type: 'string', nullable: true },
      typeArray: { type: ['string', 'null'] },
      onlyNull: { type: ['null'] },
      untyped: {},
      i: { type: 'integer' },
      a: { type: 'array' },
      o: { type: 'object' },
    },
  });

  it('84: casting keeps null for string, integer, array and object fields; validation then rejects it', () => {
    const params = { nullableKeyword: null, typeArray: null, i: null, a: null, o: null };
    expect(castParams(schema, params)).toEqual(params);
    expect(validateParams(schema, { i: null, a: null, o: null })).toEqual(['i should be integer', 'a should be array', 'o should be object']);
  });

  it('86: ["null"] and a missing type resolve to no type: values are neither cast nor rejected', () => {
    expect(castParams(schema, { onlyNull: '5', untyped: '5' })).toEqual({ onlyNull: '5', untyped: '5' });
    expect(validateParams(schema, { onlyNull: 'x', untyped: 3 })).toEqual([]);
  });

  it('87: nullable via `nullable: true` or a type array accepts null and still accepts strings', () => {
    expect(validateParams(schema, { nullableKeyword: null, typeArray: null })).toEqual([]);
    expect(validateParams(schema, { nullableKeyword: 'ok', typeArray: 'ok' })).toEqual([]);
    expect(validateParams(schema, { nullableKeyword: 5 })).toEqual(['nullableKeyword should be string']);
    expect(castParams(schema, { nullableKeyword: 'keep', typeArray: null })).toEqual({ nullableKeyword: 'keep', typeArray: null });
  });
});

describe('invariants', () => {
  const schema: JsonSchema = deepFreeze(
    toolParametersSchema({
      properties: {
        n: new IntegerSchema({ minimum: 0 }),
        s: new StringSchema({ maxLength: 3, nullable: true }),
        flags: { type: 'array', items: { type: 'boolean' } },
        rate: { type: 'number' },
        nested: { type: 'object', properties: { k: { type: 'integer' } }, additionalProperties: { type: 'number' } },
        pick: { anyOf: [{ type: 'integer' }, { const: 'x' }] },
      },
      required: ['n'],
    }),
  );
  const valueArb = fc.dictionary(
    fc.constantFrom('n', 's', 'flags', 'rate', 'nested', 'pick', 'other'),
    fc.oneof(
      fc.jsonValue(),
      fc.constantFrom('3', ' 4 ', '1_0', '٣', 'true', 'no', 'nan', '1e3', '-0'),
      fc.array(fc.constantFrom('true', '0', 'yes', 1, true)),
      fc.dictionary(fc.constantFrom('k', 'x'), fc.constantFrom('5', 5, '2.5', 'a')),
    ),
  );

  it('validating never mutates the value', () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        const frozen = deepFreeze(structuredClone(value));
        const before = JSON.stringify(frozen);
        validateParams(schema, frozen);
        expect(JSON.stringify(frozen)).toBe(before);
      }),
      { numRuns: 300 },
    );
  });

  it('casting never mutates and is idempotent', () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        const frozen = deepFreeze(structuredClone(value));
        const once = castParams(schema, frozen);
        expect(castParams(schema, once)).toEqual(once);
      }),
      { numRuns: 300 },
    );
  });
});

describe('zodToToolParameters', () => {
  it('emits clean JSON Schema', () => {
    const out = zodToToolParameters(
      z.object({ path: z.string().describe('file'), limit: z.number().int().min(1).default(10), mode: z.enum(['a', 'b']).optional() }),
    );
    expect(out).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: 'file' },
        limit: { type: 'integer', minimum: 1, default: 10 },
        mode: { type: 'string', enum: ['a', 'b'] },
      },
      required: ['path'],
    });
    expect(validateParams(out, { path: 'x', limit: 0 })).toEqual(['limit must be >= 1']);
  });

  it('rejects non-object and unrepresentable zod schemas with SchemaError', () => {
    expect(() => zodToToolParameters(z.string())).toThrow(SchemaError);
    expect(() => zodToToolParameters(z.object({ when: z.date() }))).toThrow(SchemaError);
  });
});

describe('bad input never crashes deep inside', () => {
  it('a cyclic value under a recursive schema is a typed error', async () => {
    const { ValidationError } = await import('../errors/errors.js');
    const schema: JsonSchema = {
      type: 'object',
      $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } },
      properties: { root: { $ref: '#/$defs/node' } },
    };
    const node: Record<string, unknown> = {};
    node['child'] = node;
    expect(() => validateParams(schema, { root: node })).toThrow(ValidationError);
    expect(validateParams(schema, { root: { child: { child: {} } } })).toEqual([]);
    expect(validateParams(schema, { root: { child: 5 } })).toEqual(['root.child should be object']);
  });

  it('a cyclic value under a plain schema is validated by the schema’s shape', () => {
    const loop: Record<string, unknown> = { a: 1 };
    loop['self'] = loop;
    expect(validateParams({ type: 'object', properties: { a: { type: 'string' } } }, loop)).toEqual(['a should be string']);
    expect(castParams({ type: 'object', properties: { a: { type: 'string' } } }, loop)['a']).toBe('1');
  });
});
