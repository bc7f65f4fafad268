// reference-tests.md §D through the tool-level API (Tool.castParams / Tool.validateParams), to
// prove tools-core hands tools' schemas to @nanobot/schema's helpers intact. The helpers' own
// exhaustive cases live in @nanobot/schema.
import { describe, expect, it } from 'vitest';
import { IntegerSchema, ObjectSchema, StringSchema, toolParametersSchema, validateJsonSchemaValue } from '@nanobot/schema';
import { defineTool } from './index.js';

const sample = defineTool({
  name: 'sample',
  description: 'sample tool',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 2 },
      count: { type: 'integer', minimum: 1, maximum: 10 },
      mode: { type: 'string', enum: ['fast', 'full'] },
      meta: {
        type: 'object',
        properties: { tag: { type: 'string' }, flags: { type: 'array', items: { type: 'string' } } },
        required: ['tag'],
      },
    },
    required: ['query', 'count'],
  },
  execute: () => '',
});

const check = (params: Record<string, unknown>) => sample.validateParams(sample.castParams(params));

describe('Tool.validateParams / castParams (reference §D)', () => {
  it('67: builder, free validator and the tool agree', () => {
    const schema = new ObjectSchema({ properties: { n: new IntegerSchema({ minimum: 1 }) }, required: ['n'] });
    const tool = defineTool({ name: 't', description: 'd', parameters: schema.toJsonSchema(), execute: () => '' });
    expect(tool.validateParams({ n: 0 })).toEqual(validateJsonSchemaValue({ n: 0 }, schema.toJsonSchema(), ''));
    expect(tool.validateParams({ n: 0 })).toEqual(['n must be >= 1']);
  });

  it('70/71/72/73/74: cast then validate with the reference messages', () => {
    expect(sample.castParams({ query: 'hello', count: '3' })).toEqual({ query: 'hello', count: 3 });
    expect(check({ query: 'hello', count: '3' })).toEqual([]);
    expect(check({ query: 'hi' })).toEqual(['missing required count']);
    expect(check({ query: 'hi', count: 0 })).toEqual(['count must be >= 1']);
    expect(sample.validateParams({ query: 'hi', count: '2' })).toEqual(['count should be integer']);
    const both = check({ query: 'h', count: 2, mode: 'slow' });
    expect(both).toContain('query must be at least 2 chars');
    expect(both.some((e) => e.startsWith('mode must be one of'))).toBe(true);
    expect(check({ query: 'hi', count: 2, meta: { flags: [1] } })).toEqual(['missing required meta.tag']);
    expect(sample.validateParams({ query: 'hi', count: 2, meta: { tag: 'x', flags: [1] } })).toEqual(['meta.flags[0] should be string']);
  });

  it('75/76/77: unknown fields ignored without additionalProperties; rejected by toolParametersSchema; typed extras checked', () => {
    expect(check({ query: 'hi', count: 2, extra: 1 })).toEqual([]);
    const strict = defineTool({
      name: 's',
      description: 'd',
      parameters: toolParametersSchema({ properties: { q: new StringSchema('query') }, required: ['q'] }),
      execute: () => '',
    });
    expect(strict.validateParams({ q: 'x', extra: 1 })).toEqual(['unexpected parameter extra']);
    const typed = defineTool({
      name: 'typed',
      description: 'd',
      parameters: { type: 'object', properties: {}, additionalProperties: { type: 'integer' } },
      execute: () => '',
    });
    expect(typed.validateParams({ extra: 'x' })).toEqual(['extra should be integer']);
  });

  it('78–85: casts', () => {
    const t = defineTool({
      name: 'c',
      description: 'd',
      parameters: {
        type: 'object',
        properties: {
          i: { type: 'integer' },
          f: { type: 'number' },
          b: { type: 'boolean' },
          s: { type: ['string', 'null'] },
          arr: { type: 'array', items: { type: 'integer' } },
          obj: { type: 'object', properties: { port: { type: 'integer' }, on: { type: 'boolean' } } },
        },
      },
      execute: () => '',
    });
    expect(t.castParams({ i: '42', f: '3.14', b: 'NO', arr: ['1', '2', '3'], obj: { port: '8080', on: 'true' } })).toEqual({
      i: 42,
      f: 3.14,
      b: false,
      arr: [1, 2, 3],
      obj: { port: 8080, on: true },
    });
    expect(t.castParams({ i: true })).toEqual({ i: true });
    expect(t.validateParams(t.castParams({ i: true }))).toEqual(['i should be integer']);
    expect(t.castParams({ b: 'maybe', i: '12.5.7', s: null, arr: 5 })).toEqual({ b: 'maybe', i: '12.5.7', s: null, arr: 5 });
    expect(t.validateParams(t.castParams({ f: 'Infinity' }))).toEqual(['f must be finite']);
    expect(t.validateParams({ f: false })).toEqual(['f should be number']);
  });

  it('castParams and validateParams never mutate their input', () => {
    const params = Object.freeze({ query: 'hi', count: '2', meta: Object.freeze({ tag: 5 }) });
    expect(() => check(params)).not.toThrow();
    expect(params.count).toBe('2');
  });
});
