import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError, DEFAULT_REREADABLE_OUTPUT, DEFAULT_TOOL_TRAITS, type JsonSchema } from '@nanobot/schema';
import { Tool, defineTool, toolTraitsOf, type RereadableOutput } from './index.js';

const pagedParameters = z.object({ path: z.string(), offset: z.number().int().optional(), limit: z.number().int().optional() });

describe('declared tool traits', () => {
  it('defineTool: a tool that declares nothing has the default traits, whatever its name', () => {
    const tool = defineTool({ name: 'read_file', description: 'my own reader', execute: () => '' });
    expect(tool.traits).toBe(DEFAULT_TOOL_TRAITS);
    expect(tool.compactable).toBe(false);
    expect(tool.rereadable).toBeNull();
  });

  it('defineTool: compactable and rereadable are declared, resolved and frozen', () => {
    const tool = defineTool({ name: 'cat', description: 'c', readOnly: true, compactable: true, rereadable: true, parameters: pagedParameters, execute: () => '' });
    expect(tool.traits).toEqual({ readOnly: true, compactable: true, rereadable: DEFAULT_REREADABLE_OUTPUT });
    expect(tool.rereadable).toEqual(DEFAULT_REREADABLE_OUTPUT);
    expect(Object.isFrozen(tool.traits)).toBe(true);
    expect(tool.traits).toBe(tool.traits);
    const chars = defineTool({
      name: 'page',
      description: 'p',
      rereadable: { offsetParam: 'start', limitParam: 'size', unit: 'characters', firstOffset: 0 },
      parameters: { type: 'object', properties: { start: { type: 'integer' }, size: { type: 'integer' } } },
      execute: () => '',
    });
    expect(chars.traits.rereadable).toEqual({ offsetParam: 'start', limitParam: 'size', unit: 'characters', firstOffset: 0 });
  });

  it('defineTool: a declaration that cannot work fails at definition time', () => {
    expect(() => defineTool({ name: 'cat', description: 'c', rereadable: true, parameters: z.object({ path: z.string() }), execute: () => '' })).toThrow(
      /'cat'.*'offset'/,
    );
    expect(() => defineTool({ name: 'x', description: 'd', compactable: 'yes' as never, execute: () => '' })).toThrow(ConfigurationError);
    expect(() => defineTool({ name: 'x', description: 'd', rereadable: { unit: 'pages' } as never, parameters: pagedParameters, execute: () => '' })).toThrow(
      /unit/,
    );
  });

  it('a class-based tool declares traits as fields', () => {
    class Pager extends Tool {
      override readonly name = 'pager';
      override readonly description = 'pages';
      override readonly parameters: JsonSchema = { type: 'object', properties: { from: { type: 'integer' }, count: { type: 'integer' } } };
      override readonly readOnly = true;
      override readonly compactable = true;
      override readonly rereadable: RereadableOutput = { offsetParam: 'from', limitParam: 'count', unit: 'lines', firstOffset: 1 };
      override execute() {
        return '';
      }
    }
    expect(new Pager().traits).toEqual({ readOnly: true, compactable: true, rereadable: { offsetParam: 'from', limitParam: 'count', unit: 'lines', firstOffset: 1 } });
    class Broken extends Pager {
      override readonly rereadable: RereadableOutput = { ...DEFAULT_REREADABLE_OUTPUT };
    }
    expect(() => new Broken().traits).toThrow(/'pager'.*'offset'/);
  });

  it('toolTraitsOf reads a plugin built against an older copy (no `traits` getter) from its fields', () => {
    const plugin = {
      name: 'legacy_reader',
      description: 'd',
      parameters: null,
      readOnly: true,
      compactable: true,
      jsonSchema: { type: 'object', properties: {} },
      execute: () => '',
      castParams: (p: Record<string, unknown>) => p,
      validateParams: () => [],
      parseArgs: (p: Record<string, unknown>) => ({ ok: true as const, value: p }),
      toSchema: () => ({ type: 'function' as const, function: { name: 'legacy_reader', description: 'd', parameters: {} } }),
    };
    expect(toolTraitsOf(plugin as never)).toEqual({ readOnly: true, compactable: true, rereadable: null });
    const tool = defineTool({ name: 'x', description: 'd', compactable: true, execute: () => '' });
    expect(toolTraitsOf(tool)).toBe(tool.traits);
  });
});
