// Tokens back to text, apart from RankEncoder: only truncation by tokens decodes, so a program
// that only counts (govern) leaves this out of its bundle, and loading an encoding does not
// build the table from rank to bytes (it is built here, on the first decode).
import type { RankEncoder } from './rank-encoder.js';

const utf8 = /* @__PURE__ */ new TextEncoder();
const decoder = /* @__PURE__ */ new TextDecoder('utf-8');

// Per encoder: the bytes of each rank (an encoder's ranks never change, so the table is kept).
const bytesByRank = new WeakMap<RankEncoder, Map<number, Uint8Array>>();

/** The bytes of every rank of `encoder`: the rank table inverted, then the special tokens' text. */
function rankBytes(encoder: RankEncoder): Map<number, Uint8Array> {
  let table = bytesByRank.get(encoder);
  if (table === undefined) {
    table = new Map();
    for (const [key, rank] of encoder.rankMap) table.set(rank, Uint8Array.from(key.split(','), Number));
    for (const [text, rank] of Object.entries(encoder.specialTokens)) if (!table.has(rank)) table.set(rank, utf8.encode(text));
    bytesByRank.set(encoder, table);
  }
  return table;
}

/**
 * The text of `tokens` in `encoder`'s encoding (U+FFFD where a cut split a multi-byte character;
 * unknown ids skipped), as js-tiktoken's `decode`. Pure (the table it builds once is a cache).
 */
export function decodeRanks(encoder: RankEncoder, tokens: readonly number[]): string {
  const table = rankBytes(encoder);
  const parts: Uint8Array[] = [];
  let size = 0;
  for (const token of tokens) {
    const bytes = table.get(token);
    if (bytes !== undefined) {
      parts.push(bytes);
      size += bytes.length;
    }
  }
  const joined = new Uint8Array(size);
  let at = 0;
  for (const bytes of parts) {
    joined.set(bytes, at);
    at += bytes.length;
  }
  return decoder.decode(joined);
}
