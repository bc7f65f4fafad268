// Texts of lowercase letters and digits (ids, hashes, words) are split without the encodings'
// patterns (countLowerAlnum): every count must still be the one js-tiktoken gives, in both
// encodings, at every length around the split rules (runs of digits by three, a one-character
// piece, the longest text split by hand and the first one that is not).
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '@nanobot-internal/test-support';
import { countWithEncoding } from './encoding-counter.js';
import { countTokens } from './tokenizer.js';

const full = { cl100k_base: new Tiktoken(cl100k), o200k_base: new Tiktoken(o200k) };

const lowerAlnum = (maxLength: number) => fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), maxLength });
const digitsHeavy = fc.string({ unit: fc.constantFrom(...'0123456789ab'), maxLength: 70 });

describe.each(['cl100k_base', 'o200k_base'] as const)('counting lowercase letters and digits in %s', (encoding) => {
  const exact = (text: string): number => full[encoding].encode(text, [], []).length;

  it('gives js-tiktoken’s count for ids, hashes and words', () => {
    const texts = ['a', '7', '42', '123', '1234', '1234567', 'abc', 'a1b2c3', '8ffae7d45', '000000000', 'deadbeef', 'x'.repeat(64), 'x'.repeat(65), `${'9'.repeat(64)}`, 'call7abc', 'toolu01abcdef'];
    for (const text of texts) expect([text, countWithEncoding(encoding, text)]).toEqual([text, exact(text)]);
  });

  it('gives js-tiktoken’s count for any such text, and the pattern’s count where one character breaks the rule', () => {
    fc.assert(
      fc.property(fc.oneof(lowerAlnum(80), digitsHeavy), fc.constantFrom('', 'A', ' ', '_', '-', "'s", 'é'), fc.nat(80), (text, odd, at) => {
        expect(countWithEncoding(encoding, text)).toBe(exact(text));
        const broken = text.slice(0, at) + odd + text.slice(at);
        expect(countWithEncoding(encoding, broken)).toBe(exact(broken));
      }),
      { numRuns: runs(500, 5000) },
    );
  });
});

describe('the reference estimate’s count', () => {
  it('splits the same texts alike (cl100k, through countTokens)', () => {
    fc.assert(
      fc.property(lowerAlnum(80), (text) => {
        expect(countTokens(text)).toBe(full.cl100k_base.encode(text).length);
      }),
      { numRuns: runs(200, 2000) },
    );
  });
});
