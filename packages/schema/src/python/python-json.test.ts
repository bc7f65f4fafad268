import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { pythonJsonDumps, pythonNumber } from './python-json.js';
import { ValidationError } from '../errors/errors.js';

describe('pythonJsonDumps', () => {
  it('uses Python separators and keeps non-ASCII', () => {
    expect(pythonJsonDumps({ a: [1, 2, { b: null }], 'ü': '日本 😀', t: true })).toBe('{"a": [1, 2, {"b": null}], "ü": "日本 😀", "t": true}');
    expect(pythonJsonDumps([])).toBe('[]');
    expect(pythonJsonDumps({})).toBe('{}');
  });

  it('escapes like Python (lowercase \\u00XX, DEL and lone surrogates kept)', () => {
    expect(pythonJsonDumps('q"\\\n\r\t\b\f\u0001\u001f\u007f')).toBe('"q\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001f\u007f"');
    expect(pythonJsonDumps('a\ud800b')).toBe('"a\ud800b"');
  });

  it('spells floats as Python repr', () => {
    const cases: [number, string][] = [
      [1e-7, '1e-07'],
      [-1.25e-7, '-1.25e-07'],
      [1e20, '1e+20'],
      [1.5e20, '1.5e+20'],
      [1e16, '1e+16'],
      [123456789012345680000, '1.2345678901234568e+20'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [0.5, '0.5'],
      [2.5, '2.5'],
      [3, '3'],
      [-0, '0'],
      [9007199254740991, '9007199254740991'],
      [1e300, '1e+300'],
      [5e-324, '5e-324'],
      [NaN, 'NaN'],
      [Infinity, 'Infinity'],
      [-Infinity, '-Infinity'],
    ];
    for (const [value, text] of cases) expect(pythonNumber(value), String(value)).toBe(text);
    expect(pythonJsonDumps({ r: 0.5, s: -1.25e-7 })).toBe('{"r": 0.5, "s": -1.25e-07}');
  });

  it('sorts keys by code point with sortKeys', () => {
    expect(pythonJsonDumps({ b: 1, a: { d: 2, c: 3 }, '\u{1F600}': 0, '\uffff': 1 }, { sortKeys: true })).toBe(
      '{"a": {"c": 3, "d": 2}, "b": 1, "\uffff": 1, "\u{1F600}": 0}',
    );
  });

  it('skips undefined keys, honours toJSON, writes bigint as int', () => {
    expect(pythonJsonDumps({ a: undefined, b: [undefined], c: 10n, d: new Date(0) })).toBe('{"b": [null], "c": 10, "d": "1970-01-01T00:00:00.000Z"}');
  });

  it('throws a typed error on cycles but accepts shared (acyclic) references', () => {
    const shared = { x: 1 };
    expect(pythonJsonDumps([shared, shared])).toBe('[{"x": 1}, {"x": 1}]');
    const cyclic: Record<string, unknown> = {};
    cyclic['me'] = [cyclic];
    expect(() => pythonJsonDumps(cyclic)).toThrow(ValidationError);
  });

  it('round-trips through JSON.parse for JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(pythonJsonDumps(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
