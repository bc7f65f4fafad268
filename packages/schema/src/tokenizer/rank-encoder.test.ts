// RankEncoder and decodeRanks replace js-tiktoken's `Tiktoken` (what we used of it): the same rank table, the
// same tokens and the same decoded text, on both encodings.
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '@nanobot-internal/test-support';
import { RankEncoder } from './rank-encoder.js';
import { decodeRanks } from './rank-decoder.js';

const SAMPLES = [
  '',
  'The governor counts every message before it cuts: 12,345 tokens of prose.',
  "  leading spaces, trailing\n\n\ttabs and CRLF\r\n, 'quotes' don't we'll",
  'special-token text as plain text: <|endoftext|> <|fim_prefix|> <|endofprompt|>',
  'unicode: café, naïve, 日本語のテキスト, emoji 👩‍👩‍👧‍👦 🇫🇷, math ∑∫√, a lone surrogate \ud800 here',
  `base64 ${'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo'.repeat(20)} and hex ${'deadbeef0123456789'.repeat(15)}`,
  JSON.stringify({ role: 'tool', content: [1, 2.5, null, true], nested: { a: '\u00e9\u0301' } }),
];

describe.each([
  ['cl100k_base', cl100k],
  ['o200k_base', o200k],
] as const)('RankEncoder on %s', (_name, ranks) => {
  const ours = new RankEncoder(ranks);
  const theirs = new Tiktoken(ranks) as unknown as { rankMap: Map<string, number>; encode(t: string, a: string[], d: string[]): number[]; decode(t: number[]): string };

  it('builds js-tiktoken’s rank table, entry for entry', () => {
    expect(ours.rankMap.size).toBe(theirs.rankMap.size);
    for (const [key, rank] of theirs.rankMap) if (ours.rankMap.get(key) !== rank) expect([key, ours.rankMap.get(key)]).toEqual([key, rank]);
  });

  it('encodes and decodes as js-tiktoken does (special-token text as plain text)', () => {
    for (const text of SAMPLES) {
      const tokens = theirs.encode(text, [], []);
      expect(ours.encode(text)).toEqual(tokens);
      expect(decodeRanks(ours, tokens)).toBe(theirs.decode(tokens));
      // A cut through a multi-byte character decodes to U+FFFD in both.
      expect(decodeRanks(ours, tokens.slice(0, -1))).toBe(theirs.decode(tokens.slice(0, -1)));
    }
  });

  it('decodes special-token ids as their text', () => {
    const ids = Object.values(ranks.special_tokens);
    expect(decodeRanks(ours, ids)).toBe(theirs.decode(ids));
  });

  // countPiece merges short ASCII pieces itself: every piece's count must be js-tiktoken's.
  const pieces = (text: string): string[] => [...text.matchAll(new RegExp(ranks.pat_str, 'gu'))].map((m) => m[0]);
  const asciiArb = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-. \n\'"{}:,'), maxLength: 60 });

  it('counts a piece as js-tiktoken encodes it', () => {
    const texts = [...SAMPLES, 'aB3xK9pQz Zq0Wm7Lr2 call_7_12345 toolu_01ABCdef srvtoolu_x', 'qqqqqqqqqqqqqqqqqqqqqqqqqqqqqq zzzzzzzzzzzzzzzzzzzzzzzz xkcd'];
    for (const text of texts) for (const piece of pieces(text)) expect([piece, ours.countPiece(piece)]).toEqual([piece, theirs.encode(piece, [], []).length]);
    fc.assert(
      fc.property(fc.oneof(asciiArb, fc.string({ unit: 'binary', maxLength: 80 })), (text) => {
        for (const piece of pieces(text)) expect([piece, ours.countPiece(piece)]).toEqual([piece, theirs.encode(piece, [], []).length]);
      }),
      { numRuns: runs(300, 3000) },
    );
  });

  it('encodes any text as js-tiktoken does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(ours.encode(text)).toEqual(theirs.encode(text, [], []));
      }),
      { numRuns: runs(200, 2000) },
    );
  });
});
