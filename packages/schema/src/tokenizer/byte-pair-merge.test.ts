import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '@nanobot-internal/test-support';
import { bytePairMerge } from './byte-pair-merge.js';
import { countTokens, encodeTokens } from './tokenizer.js';

const require = createRequire(import.meta.url);
const { Tiktoken } = require('js-tiktoken/lite') as {
  Tiktoken: new (ranks: unknown) => { encode(t: string, a?: string[], d?: string[]): number[]; rankMap: Map<string, number> };
};
const ranksModule = require('js-tiktoken/ranks/cl100k_base') as { default?: unknown };
const reference = new Tiktoken(ranksModule.default ?? ranksModule);
const rankOf = (key: string): number | undefined => reference.rankMap.get(key);
const utf8 = new TextEncoder();

// Words the pre-split keeps whole: letters, digits, base64-ish and hex runs, unicode letters.
const alphabets = ['abcdefghijklmnopqrstuvwxyz', 'xX', 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', '0123456789abcdef', 'éàüßøñçœ', '日本語中文字'];
const wordOf = (choices: string[]) => fc
  .tuple(fc.constantFrom(...choices), fc.integer({ min: 1, max: 300 }), fc.integer())
  .map(([alphabet, length, seed]) => {
    let out = '';
    let x = seed >>> 0;
    for (let i = 0; i < length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      out += alphabet[x % alphabet.length];
    }
    return out;
  });
// Mixed alphabets (digits, '+', '/') are split by the pre-split regex: for whole texts only.
const word = wordOf(alphabets);
// Letters only: the pre-split keeps these whole, so each is one piece for the merge itself.
const letterWord = wordOf(['abcdefghijklmnopqrstuvwxyz', 'xX', 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 'éàüßøñçœ', '日本語中文字']);

describe('bytePairMerge', () => {
  it('gives exactly js-tiktoken tokens for single pieces', () => {
    fc.assert(
      fc.property(letterWord, (piece) => {
        expect(bytePairMerge(utf8.encode(piece), rankOf)).toEqual(reference.encode(piece, [], []));
      }),
      // Exhaustive size in `pnpm test:exhaustive`; js-tiktoken's quadratic reference makes each case costly.
      { numRuns: runs(100, 2000) },
    );
  });

  it('handles repeated pairs with equal ranks leftmost first', () => {
    for (const piece of ['xxxxxxxxx', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'abababababababab', 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz']) {
      expect(bytePairMerge(utf8.encode(piece), rankOf)).toEqual(reference.encode(piece, [], []));
    }
  });

  it('returns [] for no bytes and the whole rank for a known token', () => {
    expect(bytePairMerge(new Uint8Array(0), rankOf)).toEqual([]);
    expect(bytePairMerge(utf8.encode('hello'), rankOf)).toEqual(reference.encode('hello', [], []));
  });

  it('makes the tokenizer count long words exactly, through the fast path', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(word, fc.constantFrom(' ', '\n', '  ', '.', '==', '/')), { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        const expected = reference.encode(text, [], []);
        expect(encodeTokens(text)).toEqual(expected);
        expect(countTokens(text)).toBe(expected.length);
      }),
      { numRuns: runs(40, 800) },
    );
  });

  it('counts a 40,000-character base64 run (js-tiktoken alone would take minutes)', () => {
    let blob = '';
    for (let i = 0; i < 40_000; i++) blob += alphabets[2]![(i * 7919) % 64];
    const n = countTokens(blob);
    expect(n).toBeGreaterThan(5_000);
    // Same count as the quadratic reference on a prefix short enough to check directly.
    const prefix = blob.slice(0, 1_500);
    expect(countTokens(prefix)).toBe(reference.encode(prefix, [], []).length);
  });
});
