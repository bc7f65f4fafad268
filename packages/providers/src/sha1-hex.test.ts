import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitizeAnthropicToolId } from './anthropic-request.js';
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

  it('agrees with node:crypto on any text, hashing its UTF-8 bytes (astral, lone surrogates)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => sha1Hex(text) === nodeSha1(text)), { numRuns: 500 });
  });

  it("gives sanitizeAnthropicToolId the reference's id: prefix and node:crypto's sha1 prefix, byte for byte", () => {
    // The reference: f"{safe_prefix}_{hashlib.sha1(tid.encode()).hexdigest()[:8]}".
    const reference = (id: string): string => {
      if (/^[a-zA-Z0-9_-]+$/.test(id)) return id;
      const prefix = id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 48).replace(/^_+|_+$/g, '') || 'toolu';
      return `${prefix}_${nodeSha1(id).slice(0, 8)}`;
    };
    expect(sanitizeAnthropicToolId('call|1.2')).toBe(`call_1_2_${nodeSha1('call|1.2').slice(0, 8)}`);
    fc.assert(fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }), (id) => sanitizeAnthropicToolId(id) === reference(id)), { numRuns: 500 });
  });
});
