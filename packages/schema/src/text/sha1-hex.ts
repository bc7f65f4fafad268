// SHA-1 (FIPS 180-4) over the UTF-8 bytes of a string, in plain ECMAScript. The reference names
// tool-call ids by sha1 prefixes: an id Anthropic refuses (`hashlib.sha1(tid.encode()).hexdigest()[:8]`)
// and an id Mistral refuses (`[:9]`). Requests and governed histories are built synchronously,
// Web Crypto's digest is async only and node:crypto is Node-only, so this keeps every entry
// bundling for browsers and Workers with the reference's ids (the test checks it against
// node:crypto on random text). `@noble/hashes` was the library to take, but its current major
// ships ESM only, which the CommonJS builds cannot require without Node's require(esm).

import { ValidationError } from '../errors/errors.js';

/** `text`'s UTF-8 bytes (lone surrogates as U+FFFD), or null when all its char codes are ASCII (the usual case of an id: they are its bytes). */
function nonAsciiBytes(text: string): Uint8Array | null {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return new TextEncoder().encode(text);
  return null;
}

/** The char code of a hex digit (0–15 as `0`–`9`, `a`–`f`). */
function hexCode(nibble: number): number {
  return nibble < 10 ? 48 + nibble : 87 + nibble;
}

/**
 * A 32-bit word as 8 lowercase hex digits, made as one string (`Number#toString(16)` cost ~0.7 µs
 * a word; 40 one-character concatenations left a rope the first read of the digest flattened).
 */
function hex8(word: number): string {
  return String.fromCharCode(
    hexCode((word >>> 28) & 15), hexCode((word >>> 24) & 15), hexCode((word >>> 20) & 15), hexCode((word >>> 16) & 15),
    hexCode((word >>> 12) & 15), hexCode((word >>> 8) & 15), hexCode((word >>> 4) & 15), hexCode(word & 15),
  );
}

/** The big-endian word of the padded message at byte `i`: its bytes, then 0x80, then zeros. */
function wordAt(text: string, bytes: Uint8Array | null, n: number, i: number): number {
  let word = 0;
  for (let j = 0; j < 4; j++, i++) word = (word << 8) | (i < n ? (bytes === null ? text.charCodeAt(i) : bytes[i]!) : i === n ? 0x80 : 0);
  return word;
}

/**
 * The SHA-1 digest of `text`'s UTF-8 bytes (lone surrogates as U+FFFD) as lowercase hex: all 40
 * digits, or its first `digits` (1–40; the reference names ids by such prefixes, `[:8]` and
 * `[:9]`, and the digits after them are not made). Pure; throws {@link ValidationError} when
 * `digits` is not an integer from 1 to 40. ~0.9 µs for an id-sized text and 9 digits (Node 20):
 * int32 locals, and the message schedule as a window of 16 locals moved along each round (an
 * 80-word Int32Array made per call was ~1 µs of an id's ~2.4 µs, and one array kept for every
 * call is module state); destructuring, a rotation closure and `toString(16)` made an earlier
 * version ~7 µs.
 */
export function sha1Hex(text: string, digits = 40): string {
  if (!Number.isInteger(digits) || digits < 1 || digits > 40) throw new ValidationError(`sha1Hex: digits must be an integer from 1 to 40, got ${String(digits)}`, ['digits']);
  const bytes = nonAsciiBytes(text);
  const n = bytes === null ? text.length : bytes.length;
  // The message's bytes, a 1 bit, zeros, then the length in bits (64-bit), in 64-byte blocks.
  const blocks = Math.ceil((n + 9) / 64);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  for (let block = 0; block < blocks; block++) {
    const o = block * 64;
    const last = block === blocks - 1;
    // The schedule's last 16 words (w0 the oldest), moved on by one each round: rounds 0–15 read
    // the block's words (in the last block, 14 and 15 are the length in bits), later ones their mix.
    let w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0, w6 = 0, w7 = 0;
    let w8 = 0, w9 = 0, w10 = 0, w11 = 0, w12 = 0, w13 = 0, w14 = 0, w15 = 0;
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let t = 0; t < 80; t++) {
      let wt: number;
      if (t >= 16) {
        const x = w13 ^ w8 ^ w2 ^ w0;
        wt = (x << 1) | (x >>> 31);
      } else if (last && t >= 14) {
        wt = t === 14 ? Math.floor(n / 0x20000000) : (n << 3) | 0;
      } else {
        wt = wordAt(text, bytes, n, o + 4 * t);
      }
      w0 = w1; w1 = w2; w2 = w3; w3 = w4; w4 = w5; w5 = w6; w6 = w7; w7 = w8;
      w8 = w9; w9 = w10; w10 = w11; w11 = w12; w12 = w13; w13 = w14; w14 = w15; w15 = wt;
      const f = t < 20 ? ((b & c) | (~b & d)) + 0x5a827999
        : t < 40 ? (b ^ c ^ d) + 0x6ed9eba1
          : t < 60 ? ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc
            : (b ^ c ^ d) + 0xca62c1d6;
      const next = (((a << 5) | (a >>> 27)) + f + e + wt) | 0;
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = next;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  const words = [h0, h1, h2, h3, h4];
  let hex = '';
  for (let k = 0; k * 8 < digits; k++) hex += hex8(words[k]!);
  return hex.length === digits ? hex : hex.slice(0, digits);
}
