import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareCodePoints } from './compare-code-points.js';

// Python's order by definition: code point by code point, a lone surrogate as itself.
function byCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

// Units chosen to hit every boundary: ASCII, just below and above the surrogates, both halves
// of a pair (so pairs and lone halves both occur), and the top of the BMP.
const unit = fc.constantFrom(0x41, 0x42, 0xd7ff, 0xd83d, 0xd83e, 0xdbff, 0xdc00, 0xde00, 0xdfff, 0xe000, 0xff01, 0xffff);
const text = fc.array(unit, { maxLength: 6 }).map((units) => String.fromCharCode(...units));

describe('compareCodePoints', () => {
  it('orders as Python compares str, lone surrogates included', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(byCodePoints(a, b)));
      }),
      { numRuns: 5000 },
    );
  });

  it('puts astral characters after U+E000–U+FFFF, unlike UTF-16 order', () => {
    expect(['\uff01', '\u{1F600}', 'a'].sort(compareCodePoints)).toEqual(['a', '\uff01', '\u{1F600}']);
    expect(['\uff01', '\u{1F600}', 'a'].sort()).toEqual(['a', '\u{1F600}', '\uff01']);
  });

  // The registry's former copy took every surrogate unit for half of a pair: a lone low
  // surrogate (U+DC00) sorted after U+E000, where Python puts it before. MCP's and python-json's
  // copies (code point iteration) were right; this one keeps their answers without allocating.
  it('keeps a lone surrogate at its own code point', () => {
    expect(Math.sign(compareCodePoints('\udc00', '\ue000'))).toBe(-1);
    expect(Math.sign(compareCodePoints('\ud83dA', '\ud83dB'))).toBe(-1);
    expect(Math.sign(compareCodePoints('\ud83d', '\u{1F600}'))).toBe(-1);
    expect(Math.sign(compareCodePoints('\u{1F600}', '\ud83dA'))).toBe(1);
    expect(compareCodePoints('abc', 'abc')).toBe(0);
  });
});
