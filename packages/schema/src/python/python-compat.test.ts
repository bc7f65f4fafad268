import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pythonFloat, pythonInt } from './python-cast.js';
import { pythonJsonDumps } from './python-json.js';
import { parsePythonJson } from './python-json-parse.js';
import { pythonRepr, pythonStr } from './python-repr.js';
import { PYTHON_WHITESPACE_CLASS, pythonIsBlank, pythonIsSpace, pythonLstrip, pythonRstrip, pythonStrip } from './python-strip.js';
import { pythonTruthy } from './python-truthy.js';

// Python 3's own answers, written by scripts/gen-python-cases.py (run it again to refresh).
interface Cases {
  python: string;
  whitespace: number[];
  strip: Array<{ input: string; strip: string; lstrip: string; rstrip: string }>;
  truthy: Array<{ input: unknown; truthy: boolean }>;
  int: Array<{ input: string; result: unknown }>;
  float: Array<{ input: string; result: unknown }>;
  dumps: Array<{ input: unknown; dumps: string; sorted: string }>;
  repr: Array<{ input: unknown; repr: string; str: string }>;
  loads: Array<{ input: string; result: unknown }>;
}
const cases = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'python-cases.json'), 'utf8')) as Cases;

const FLOATS: Record<string, number> = { nan: NaN, inf: Infinity, '-inf': -Infinity };

/** A fixture value as JS: `{"$float": "nan"}` and friends become the number. */
function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (typeof value === 'object' && value !== null) {
    const tag = (value as Record<string, unknown>)['$float'];
    if (typeof tag === 'string') return FLOATS[tag];
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decode(v)]));
  }
  return value;
}

function raises(result: unknown): boolean {
  return typeof result === 'object' && result !== null && '$error' in result;
}

const label = (text: string): string => JSON.stringify(text);

describe(`Python compatibility against Python ${cases.python}`, () => {
  it('pythonIsSpace is str.isspace() for every code point', () => {
    const space = new Set(cases.whitespace);
    const wrong: number[] = [];
    for (let code = 0; code <= 0x10ffff; code++) if (pythonIsSpace(code) !== space.has(code)) wrong.push(code);
    expect(wrong).toEqual([]);
  });

  it('PYTHON_WHITESPACE_CLASS matches exactly the same code points, with and without the u flag', () => {
    const space = new Set(cases.whitespace);
    const unicode = new RegExp(`^${PYTHON_WHITESPACE_CLASS}$`, 'u');
    const units = new RegExp(`^${PYTHON_WHITESPACE_CLASS}$`);
    const wrong: number[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      const ch = String.fromCodePoint(code);
      if (unicode.test(ch) !== space.has(code) || units.test(ch) !== space.has(code)) wrong.push(code);
    }
    expect(wrong).toEqual([]);
  });

  it.each(cases.strip.map((c) => [label(c.input), c] as const))('strip, lstrip, rstrip of %s', (_label, c) => {
    expect([pythonStrip(c.input), pythonLstrip(c.input), pythonRstrip(c.input)]).toEqual([c.strip, c.lstrip, c.rstrip]);
    expect(pythonIsBlank(c.input)).toBe(c.strip === '');
  });

  it.each(cases.truthy.map((c) => [JSON.stringify(c.input), c] as const))('bool(%s)', (_label, c) => {
    expect(pythonTruthy(decode(c.input))).toBe(c.truthy);
  });

  it.each(cases.int.map((c) => [label(c.input), c] as const))('int(%s)', (_label, c) => {
    expect(pythonInt(c.input)).toBe(raises(c.result) ? undefined : c.result);
  });

  it.each(cases.float.map((c) => [label(c.input), c] as const))('float(%s)', (_label, c) => {
    expect(pythonFloat(c.input)).toBe(raises(c.result) ? undefined : decode(c.result));
  });

  it.each(cases.dumps.map((c) => [c.dumps, c] as const))('json.dumps → %s', (_label, c) => {
    const value = decode(c.input);
    expect(pythonJsonDumps(value)).toBe(c.dumps);
    expect(pythonJsonDumps(value, { sortKeys: true })).toBe(c.sorted);
  });

  it.each(cases.repr.map((c) => [c.repr, c] as const))('repr → %s', (_label, c) => {
    const value = decode(c.input);
    expect(pythonRepr(value)).toBe(c.repr);
    expect(pythonStr(value)).toBe(c.str);
  });

  it.each(cases.loads.map((c) => [label(c.input), c] as const))('json.loads(%s)', (_label, c) => {
    if (raises(c.result)) expect(() => parsePythonJson(c.input)).toThrow(SyntaxError);
    else expect(parsePythonJson(c.input)).toEqual(decode(c.result));
  });
});
