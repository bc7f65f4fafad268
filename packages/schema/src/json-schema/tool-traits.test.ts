import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/errors.js';
import { DEFAULT_REREADABLE_OUTPUT, DEFAULT_TOOL_TRAITS, resolveToolTraits, toolTraitsFor, toolTraitsTable } from './tool-traits.js';

const readFileParameters = { type: 'object', properties: { path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } } };

describe('resolveToolTraits', () => {
  it('gives a tool that declares nothing the default traits', () => {
    expect(resolveToolTraits(undefined)).toBe(DEFAULT_TOOL_TRAITS);
    expect(resolveToolTraits({})).toBe(DEFAULT_TOOL_TRAITS);
    expect(resolveToolTraits({ readOnly: false, compactable: false, rereadable: false })).toBe(DEFAULT_TOOL_TRAITS);
    expect(DEFAULT_TOOL_TRAITS).toEqual({ readOnly: false, compactable: false, rereadable: null });
  });

  it('resolves `rereadable: true` to read_file paging and merges a partial object over it', () => {
    const traits = resolveToolTraits({ readOnly: true, compactable: true, rereadable: true }, { parameters: readFileParameters });
    expect(traits).toEqual({ readOnly: true, compactable: true, rereadable: DEFAULT_REREADABLE_OUTPUT });
    expect(Object.isFrozen(traits)).toBe(true);
    const chars = resolveToolTraits({ rereadable: { offsetParam: 'start', limitParam: 'count', unit: 'characters', firstOffset: 0 } });
    expect(chars.rereadable).toEqual({ offsetParam: 'start', limitParam: 'count', unit: 'characters', firstOffset: 0 });
    expect(resolveToolTraits({ rereadable: { unit: 'characters' } }).rereadable).toEqual({ ...DEFAULT_REREADABLE_OUTPUT, unit: 'characters' });
  });

  it('refuses declarations that cannot work, naming the tool and the field', () => {
    const bad: [unknown, RegExp][] = [
      [{ compactable: 'yes' }, /`compactable` must be a boolean/],
      [{ readOnly: 1 }, /`readOnly` must be a boolean/],
      [{ rereadable: 'lines' }, /`rereadable` must be true, false or/],
      [{ rereadable: { unit: 'pages' } }, /unit` must be 'lines' or 'characters'/],
      [{ rereadable: { offsetParam: '' } }, /offsetParam` must be a non-empty string/],
      [{ rereadable: { offsetParam: 'limit' } }, /must differ/],
      [{ rereadable: { firstOffset: 2 } }, /firstOffset` must be 0 or 1/],
      [[], /must be an object/],
    ];
    for (const [declaration, message] of bad) {
      const attempt = () => resolveToolTraits(declaration as never, { toolName: 'my_tool' });
      expect(attempt).toThrow(ConfigurationError);
      expect(attempt).toThrow(message);
      expect(attempt).toThrow(/'my_tool'/);
    }
  });

  it('refuses a continuation on arguments the tool does not take', () => {
    expect(() => resolveToolTraits({ rereadable: true }, { toolName: 'cat', parameters: { type: 'object', properties: { path: {} } } })).toThrow(
      /names the argument 'offset', which the tool's parameters do not have/,
    );
    expect(() => resolveToolTraits({ rereadable: { offsetParam: 'from', limitParam: 'n' } }, { parameters: { type: 'object', properties: { from: {}, n: {} } } })).not.toThrow();
  });

  it('does not mutate the declaration', () => {
    const declaration = Object.freeze({ rereadable: Object.freeze({ unit: 'lines' as const }) });
    expect(() => resolveToolTraits(declaration)).not.toThrow();
  });
});

describe('toolTraitsFor / toolTraitsTable', () => {
  it('looks names up as own properties only, defaulting everything else', () => {
    const table = toolTraitsTable([
      ['read_file', { readOnly: true, compactable: true, rereadable: true }],
      ['exec', { compactable: true }],
    ]);
    expect(Object.isFrozen(table)).toBe(true);
    expect(toolTraitsFor(table, 'read_file').rereadable).toEqual(DEFAULT_REREADABLE_OUTPUT);
    expect(toolTraitsFor(table, 'exec')).toEqual({ readOnly: false, compactable: true, rereadable: null });
    for (const name of ['write_file', 'constructor', '__proto__', 'toString', 42, undefined]) expect(toolTraitsFor(table, name)).toBe(DEFAULT_TOOL_TRAITS);
    expect(toolTraitsFor(undefined, 'read_file')).toBe(DEFAULT_TOOL_TRAITS);
    expect(JSON.parse(JSON.stringify(table))).toEqual({
      read_file: { readOnly: true, compactable: true, rereadable: DEFAULT_REREADABLE_OUTPUT },
      exec: { readOnly: false, compactable: true, rereadable: null },
    });
  });
});
