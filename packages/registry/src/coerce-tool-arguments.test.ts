import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coerceToolArguments } from './coerce-tool-arguments.js';
import { deepFreeze } from '@nanobot-internal/test-support';

const on = { repair: true, maxRepairChars: 10_000 };
const off = { repair: false, maxRepairChars: 10_000 };

describe('coerceToolArguments', () => {
  it('follows the reference rules with repair off', () => {
    expect(coerceToolArguments(null, undefined, off).value).toEqual({});
    expect(coerceToolArguments(undefined, undefined, off).value).toEqual({});
    expect(coerceToolArguments('  ', undefined, off).value).toEqual({});
    expect(coerceToolArguments('true', undefined, off).value).toBe('true');
    expect(coerceToolArguments(' [1] ', undefined, off).value).toEqual([1]);
    expect(coerceToolArguments('{bad', undefined, off)).toEqual({ value: '{bad', repaired: false, malformed: null });
    expect(coerceToolArguments({ arguments: '{"a":1}' }, {}, off).value).toEqual({ a: 1 });
    expect(coerceToolArguments({ arguments: '{"a":1}' }, { arguments: {} }, off).value).toEqual({ arguments: '{"a":1}' });
    // Only one level is unwrapped.
    expect(coerceToolArguments({ arguments: { arguments: { a: 1 } } }, {}, off).value).toEqual({ arguments: { a: 1 } });
  });

  it('repairs syntax slips in complete objects, including inside the arguments wrapper', () => {
    expect(coerceToolArguments("{'path': 'a', 'all': True,}", undefined, on)).toEqual({
      value: { path: 'a', all: true },
      repaired: true,
      malformed: null,
    });
    expect(coerceToolArguments({ arguments: '{path: "x"}' }, {}, on)).toEqual({ value: { path: 'x' }, repaired: true, malformed: null });
  });

  it('reports what it cannot repair instead of guessing', () => {
    const cut = coerceToolArguments('{"content": "half a fi', undefined, on);
    expect(cut.value).toBe('{"content": "half a fi');
    expect(cut.malformed).toContain('incomplete');
  });

  it('property: never throws, never mutates its input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string(), fc.jsonValue()), fc.boolean(), (raw, repair) => {
        const input = typeof raw === 'object' && raw !== null ? deepFreeze(structuredClone(raw)) : raw;
        const before = JSON.stringify(input);
        const out = coerceToolArguments(input, undefined, { repair, maxRepairChars: 10_000 });
        expect(JSON.stringify(input)).toBe(before);
        expect(out).toHaveProperty('value');
      }),
      { numRuns: 500 },
    );
  });

  it('property: a valid JSON object text always parses to exactly that object, repair or not', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.boolean(), (obj, repair) => {
        const out = coerceToolArguments(JSON.stringify(obj), { arguments: {} }, { repair, maxRepairChars: 10_000 });
        expect(out.value).toEqual(JSON.parse(JSON.stringify(obj)));
        expect(out.repaired).toBe(false);
      }),
    );
  });
});
