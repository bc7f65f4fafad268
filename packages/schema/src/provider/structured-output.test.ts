import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SchemaError } from '../errors/errors.js';
import { StructuredOutputError, isStrictCompatible, parseStructuredOutput, toResponseFormat } from './structured-output.js';

const schema = { type: 'object', properties: { a: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['a', 'tags'], additionalProperties: false };

describe('toResponseFormat', () => {
  it('accepts JSON Schema and picks strict only when the schema meets the strict rules', () => {
    expect(toResponseFormat({ name: 'x', schema })).toEqual({ type: 'json_schema', name: 'x', schema, strict: true });
    const loose = { type: 'object', properties: { a: { type: 'integer' } } };
    expect(toResponseFormat({ name: 'x', schema: loose }).strict).toBe(false);
    expect(toResponseFormat({ name: 'x', schema: loose, strict: true, description: 'd' })).toMatchObject({ strict: true, description: 'd' });
  });

  it('converts zod from the output side (defaults filled, objects closed)', () => {
    const format = toResponseFormat({ name: 'todo', schema: z.object({ title: z.string(), done: z.boolean().default(false) }) });
    expect(format.schema).toMatchObject({ type: 'object', required: ['title', 'done'], additionalProperties: false });
    expect(format.strict).toBe(true);
  });

  it('rejects bad names and non-object schemas with SchemaError', () => {
    expect(() => toResponseFormat({ name: 'has space', schema })).toThrow(SchemaError);
    expect(() => toResponseFormat({ name: 'x', schema: { type: 'string' } })).toThrow(/object schema/);
    expect(() => toResponseFormat({ name: 'x', schema: z.string() })).toThrow(SchemaError);
  });
});

describe('isStrictCompatible', () => {
  it('checks nested objects too', () => {
    expect(isStrictCompatible(schema)).toBe(true);
    expect(isStrictCompatible({ ...schema, properties: { ...schema.properties, inner: { type: 'object', properties: { b: { type: 'string' } }, required: [] } }, required: ['a', 'tags', 'inner'] })).toBe(false);
  });
});

describe('parseStructuredOutput', () => {
  const format = toResponseFormat({ name: 'x', schema });
  it('parses valid JSON, also inside a Markdown fence', () => {
    expect(parseStructuredOutput('{"a": 1, "tags": []}', format)).toEqual({ a: 1, tags: [] });
    expect(parseStructuredOutput('```json\n{"a": 2, "tags": ["t"]}\n```', format)).toEqual({ a: 2, tags: ['t'] });
  });

  it.each([
    ['', /no answer/],
    [null, /no answer/],
    ['{"a": 1,', /not JSON/],
    ['{"a": "1", "tags": []}', /does not match/],
    ['{"a": 1, "tags": [], "extra": true}', /does not match/],
  ])('rejects %j with a StructuredOutputError carrying the raw text', (text, message) => {
    let caught: unknown;
    try {
      parseStructuredOutput(text, format);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StructuredOutputError);
    const e = caught as StructuredOutputError;
    expect(e.message).toMatch(message);
    expect(e.raw).toBe(text ?? '');
    expect(e.code).toBe('STRUCTURED_OUTPUT_INVALID');
    expect(e.issues.length).toBeGreaterThan(0);
  });
});
