import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { suggestToolName, toolLookupKey } from './suggest-tool-name.js';
import { compareCodePoints } from './compare-code-points.js';

describe('suggestToolName', () => {
  it('property: a suggestion is always a registered name with the same key, and unique', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 6 }), { maxLength: 8 }), fc.string({ maxLength: 6 }), (names, asked) => {
        const got = suggestToolName(asked, names);
        if (got === null) return;
        expect(names).toContain(got);
        expect(toolLookupKey(got)).toBe(toolLookupKey(asked));
        expect(names.filter((n) => toolLookupKey(n) === toolLookupKey(asked)).length).toBe(1);
      }),
    );
  });
});

describe('compareCodePoints', () => {
  it('orders like Python sorted(): by code point, astral characters after U+FFFF', () => {
    expect(['\uff01', '\u{1F600}', 'a'].sort(compareCodePoints)).toEqual(['a', '\uff01', '\u{1F600}']);
    // UTF-16 order would put the emoji (D83D…) before U+FF01.
    expect(['\uff01', '\u{1F600}'].sort()).toEqual(['\u{1F600}', '\uff01']);
  });

  it('property: agrees with comparing code point arrays', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const ca = [...a].map((c) => c.codePointAt(0)!);
        const cb = [...b].map((c) => c.codePointAt(0)!);
        let expected = 0;
        for (let i = 0; i < Math.min(ca.length, cb.length) && expected === 0; i++) expected = Math.sign(ca[i]! - cb[i]!);
        if (expected === 0) expected = Math.sign(ca.length - cb.length);
        expect(Math.sign(compareCodePoints(a, b))).toBe(expected);
      }),
    );
  });
});
