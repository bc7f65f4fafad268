import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/errors.js';
import { sha1Hex } from './sha1-hex.js';

const nodeSha1 = (text: string): string => createHash('sha1').update(text, 'utf8').digest('hex');

describe('sha1Hex', () => {
  it('gives the FIPS 180-4 test vectors', () => {
    expect(sha1Hex('')).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(sha1Hex('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(sha1Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('84983e441c3bd26ebaae4aa1f95129e5e54670f1');
  });

  it('agrees with node:crypto at every padding boundary (55, 56, 63, 64, 119, 120 bytes)', () => {
    for (const n of [1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 100_000]) expect(sha1Hex('x'.repeat(n))).toBe(nodeSha1('x'.repeat(n)));
  });

  it('gives the first `digits` hex digits of the digest, and refuses a count outside 1–40', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 150 }), fc.integer({ min: 1, max: 40 }), (text, digits) => sha1Hex(text, digits) === nodeSha1(text).slice(0, digits)), { numRuns: 500 });
    for (const bad of [0, 41, 8.5, Number.NaN, -1]) expect(() => sha1Hex('abc', bad)).toThrow(ValidationError);
  });

  it('gives each text its own digest, one call after another and across block counts', () => {
    const texts = ['call_1', 'x'.repeat(200), '', 'é', 'call_2'];
    const once = texts.map((t) => nodeSha1(t));
    for (let round = 0; round < 3; round++) texts.forEach((t, i) => expect(sha1Hex(t)).toBe(once[i]));
  });

  it('agrees with node:crypto on any text, hashing its UTF-8 bytes (astral, lone surrogates)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => sha1Hex(text) === nodeSha1(text)), { numRuns: 500 });
  });
});
