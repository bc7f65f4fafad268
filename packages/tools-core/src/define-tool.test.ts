import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError, SchemaError } from '@nanobot/schema';
import { z as z3 } from 'zod/v3';
import { Tool, createToolContext, defineTool, isTool, type ToolContext } from './index.js';

describe('defineTool', () => {
  it('with zod: typed arguments, JSON Schema for the model, defaults and flags', async () => {
    const tool = defineTool({
      name: 'search',
      description: 'Search the web',
      readOnly: true,
      parameters: z.object({ query: z.string().describe('What to look for'), count: z.number().int().default(5) }),
      execute: ({ query, count }) => {
        expectTypeOf(query).toEqualTypeOf<string>();
        expectTypeOf(count).toEqualTypeOf<number>();
        return `${query}×${count}`;
      },
    });
    expect(tool.name).toBe('search');
    expect(tool.readOnly).toBe(true);
    expect(tool.exclusive).toBe(false);
    expect(tool.concurrencySafe).toBe(true);
    expect(tool.scopes).toEqual(['core']);
    expect(tool.jsonSchema.type).toBe('object');
    expect(tool.jsonSchema).not.toHaveProperty('$schema');
    expect((tool.jsonSchema.properties as Record<string, unknown>).query).toMatchObject({
      type: 'string',
      description: 'What to look for',
    });
    const parsed = tool.parseArgs({ query: 'cats' });
    expect(parsed).toEqual({ ok: true, value: { query: 'cats', count: 5 } });
    expect(await tool.execute({ query: 'cats', count: 2 }, createToolContext())).toBe('cats×2');
  });

  it('concurrencySafe = readOnly && !exclusive', () => {
    const make = (readOnly: boolean, exclusive: boolean) =>
      defineTool({ name: 't', description: 'd', readOnly, exclusive, execute: () => '' }).concurrencySafe;
    expect([make(true, false), make(true, true), make(false, false), make(false, true)]).toEqual([true, false, false, false]);
  });

  it('with JSON Schema: deep-frozen copy, caller\'s object untouched and unable to change the tool (reference §D 69)', () => {
    const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    const tool = defineTool({ name: 'read', description: 'r', parameters: schema, execute: () => '' });
    expect(tool.jsonSchema).toEqual(schema);
    expect(tool.jsonSchema).not.toBe(schema);
    (schema.properties.path as { type: string }).type = 'integer';
    expect((tool.jsonSchema.properties as { path: { type: string } }).path.type).toBe('string');
    expect(Object.isFrozen(tool.jsonSchema)).toBe(true);
    expect(() => {
      (tool.jsonSchema.properties as { path: { type: string } }).path.type = 'number';
    }).toThrow(TypeError);
    expect(tool.jsonSchema).toBe(tool.jsonSchema);
  });

  it('no parameters → an empty object schema', () => {
    const tool = defineTool({ name: 'noop', description: 'n', execute: () => '' });
    expect(tool.jsonSchema).toEqual({ type: 'object', properties: {} });
    expect(tool.toSchema()).toEqual({
      type: 'function',
      function: { name: 'noop', description: 'n', parameters: { type: 'object', properties: {} } },
    });
    expect(tool.toSchema()).toBe(tool.toSchema());
  });

  it('bad specs fail at definition time with typed errors', () => {
    expect(() => defineTool({ name: '', description: 'd', execute: () => '' })).toThrow(ConfigurationError);
    expect(() => defineTool({ name: 'x', description: 'd' } as never)).toThrow(ConfigurationError);
    expect(() => defineTool({ name: 'x', description: 'd', scopes: ['admin' as never], execute: () => '' })).toThrow(
      /unknown scope 'admin'/,
    );
    expect(() => defineTool({ name: 'x', description: 'd', timeoutMs: -1, execute: () => '' })).toThrow(ConfigurationError);
    expect(() => defineTool({ name: 'x', description: 'd', parameters: [] as never, execute: () => '' })).toThrow(SchemaError);
    expect(() => defineTool({ name: 'x', description: 'd', parameters: z.string() as never, execute: () => '' })).toThrow(
      /object schema/,
    );
    expect(() => defineTool(null as never)).toThrow(ConfigurationError);
  });

  it('a zod 3 schema gets a clear error, not "could not be cloned"', () => {
    const old = z3.object({ query: z3.string() });
    const make = () => defineTool({ name: 'x', description: 'd', parameters: old as never, execute: () => '' });
    expect(make).toThrow(SchemaError);
    expect(make).toThrow(/^tool parameters need zod 4 or JSON Schema: this is a zod 3 schema/);
  });
});

describe('Tool (class-based)', () => {
  class Counter extends Tool<{ step: number }> {
    override readonly name = 'count';
    override readonly description = 'Counts';
    override readonly parameters = z.object({ step: z.number() });
    override readonly readOnly = true;
    override readonly exclusive = true;
    override readonly scopes = ['core', 'subagent'] as const;
    execute({ step }: { step: number }, ctx: ToolContext) {
      return `${ctx.chatId}+${step}`;
    }
  }

  it('derives the same things as defineTool', async () => {
    const tool = new Counter();
    expect(isTool(tool)).toBe(true);
    expect(tool.concurrencySafe).toBe(false);
    expect(tool.jsonSchema.type).toBe('object');
    expect(tool.toSchema().function.name).toBe('count');
    expect(tool.parseArgs({ step: 'x' })).toEqual({ ok: false, errors: [expect.stringMatching(/^step: /)] });
    expect(await tool.execute({ step: 2 }, createToolContext({ chatId: 'c9' }))).toBe('c9+2');
  });

  it('isTool rejects look-alikes missing the Tool methods', () => {
    expect(isTool({ name: 'x', description: 'y', execute() {} })).toBe(false);
    expect(isTool(null)).toBe(false);
    expect(isTool(defineTool({ name: 'x', description: 'y', execute: () => '' }))).toBe(true);
  });
});
