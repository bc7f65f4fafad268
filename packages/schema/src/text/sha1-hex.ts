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

/**
 * The message schedule one call fills and reads: words 0–15 are written for each block before
 * any is read and 16–79 are computed from them, so nothing carries from one call to the next,
 * and no call can start inside another (the function calls nothing that could call back). One
 * array for every call, not one per call: making an 80-word Int32Array per call was ~1 µs of
 * an id-sized call's ~2.4 µs (Node 20).
 */
const SCHEDULE = new Int32Array(80);

/**
 * The SHA-1 digest of `text`'s UTF-8 bytes (lone surrogates as U+FFFD) as lowercase hex: all 40
 * digits, or its first `digits` (1–40; the reference names ids by such prefixes, `[:8]` and
 * `[:9]`, and the digits after them are not made). Pure; throws {@link ValidationError} when `digits` is not
 * an integer from 1 to 40. ~0.6 µs for an id-sized text and 9 digits (Node 20): int32 locals,
 * one loop per round function, one schedule for every call (see SCHEDULE); destructuring, a
 * rotation closure and `toString(16)` made an earlier version ~7 µs.
 */
export function sha1Hex(text: string, digits = 40): string {
  if (!Number.isInteger(digits) || digits < 1 || digits > 40) throw new ValidationError(`sha1Hex: digits must be an integer from 1 to 40, got ${String(digits)}`, ['digits']);
  const bytes = nonAsciiBytes(text);
  const n = bytes === null ? text.length : bytes.length;
  // The message's bytes, a 1 bit, zeros, then the length in bits (64-bit), in 64-byte blocks.
  const blocks = Math.ceil((n + 9) / 64);
  const w = SCHEDULE;
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  for (let block = 0; block < blocks; block++) {
    // Big-endian words of this block.
    for (let t = 0, i = block * 64; t < 16; t++) {
      let word = 0;
      for (let j = 0; j < 4; j++, i++) word = (word << 8) | (i < n ? (bytes === null ? text.charCodeAt(i) : bytes[i]!) : i === n ? 0x80 : 0);
      w[t] = word;
    }
    if (block === blocks - 1) {
      w[14] = Math.floor(n / 0x20000000);
      w[15] = (n << 3) | 0;
    }
    for (let t = 16; t < 80; t++) {
      const x = w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!;
      w[t] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let t = 0;
    for (; t < 20; t++) {
      const next = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + 0x5a827999 + e + w[t]!) | 0;
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = next;
    }
    for (; t < 40; t++) {
      const next = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + 0x6ed9eba1 + e + w[t]!) | 0;
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = next;
    }
    for (; t < 60; t++) {
      const next = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc + e + w[t]!) | 0;
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = next;
    }
    for (; t < 80; t++) {
      const next = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + 0xca62c1d6 + e + w[t]!) | 0;
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = next;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  if (digits === 40) return hex8(h0) + hex8(h1) + hex8(h2) + hex8(h3) + hex8(h4);
  const words = [h0, h1, h2, h3, h4];
  let hex = '';
  for (let k = 0; k * 8 < digits; k++) hex += hex8(words[k]!);
  return hex.length === digits ? hex : hex.slice(0, digits);
}
