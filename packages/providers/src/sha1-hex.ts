// SHA-1 (FIPS 180-4) over the UTF-8 bytes of a string, in plain ECMAScript. The reference names a
// tool-call id Anthropic refuses by a sha1 prefix (`hashlib.sha1(tid.encode()).hexdigest()[:8]`);
// the request is built synchronously, Web Crypto's digest is async only and node:crypto is
// Node-only, so this keeps `@nanobot/providers/anthropic` bundling for browsers and Workers with
// the same ids (the test checks it against node:crypto on random text). `@noble/hashes` was the
// library to take, but its current major ships ESM only, which the CommonJS build cannot require
// without Node's require(esm); the governor's MemoryArtifactStore hashes the same way (SHA-256).

const rotl = (x: number, n: number): number => (x << n) | (x >>> (32 - n));

/** The SHA-1 digest of `text`'s UTF-8 bytes (lone surrogates as U+FFFD) as 40 lowercase hex digits. Pure; never throws. */
export function sha1Hex(text: string): string {
  const bytes = new TextEncoder().encode(text);
  // Message, a 1 bit, zeros, then the length in bits as a 64-bit big-endian number.
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bytes.length / 0x20000000));
  view.setUint32(padded.length - 4, (bytes.length << 3) >>> 0);
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  const w = new Uint32Array(80);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(offset + t * 4);
    for (let t = 16; t < 80; t++) w[t] = rotl(w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!, 1);
    let [a, b, c, d, e] = h as [number, number, number, number, number];
    for (let t = 0; t < 80; t++) {
      const f = t < 20 ? ((b & c) | (~b & d)) + 0x5a827999 : t < 40 ? (b ^ c ^ d) + 0x6ed9eba1 : t < 60 ? ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc : (b ^ c ^ d) + 0xca62c1d6;
      const next = (rotl(a, 5) + f + e + w[t]!) >>> 0;
      e = d;
      d = c;
      c = rotl(b, 30) >>> 0;
      b = a;
      a = next;
    }
    h[0] = (h[0]! + a) >>> 0;
    h[1] = (h[1]! + b) >>> 0;
    h[2] = (h[2]! + c) >>> 0;
    h[3] = (h[3]! + d) >>> 0;
    h[4] = (h[4]! + e) >>> 0;
  }
  return h.map((word) => word.toString(16).padStart(8, '0')).join('');
}
