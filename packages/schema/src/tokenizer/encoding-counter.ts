// Token counts in a named tiktoken encoding as a provider bills them: special-token text is
// plain text there (the API never lets a request's text become a control token), so nothing
// is refused, unlike the reference estimate's `countTokens`.
import { clearPieceCache, countPiecesWith, countPlainTokens } from './tokenizer.js';
import { loadedEncoding, type EncodingName } from './encoder-store.js';

export type { EncodingName } from './encoder-store.js';

const PIECE_CACHE_LIMIT = 100_000;
// Token count per short o200k pre-split piece (natural text repeats its words).
const o200kPieces = new Map<string, number>();

/**
 * Token count of `text` in encoding `name`, equal to `encode(text, [], []).length` (special
 * tokens as plain text); `null` only when tiktoken is switched off for tests. Counts piece by
 * piece with a bounded per-piece cache (BPE never merges across pre-split pieces); cl100k shares
 * the reference estimate's encoder and piece cache. Throws `TokenizerNotLoadedError` where the
 * encoding's ranks need `await loadTokenizer(name)` first.
 */
export function countWithEncoding(name: EncodingName, text: string): number | null {
  if (text.length === 0) return 0;
  if (name === 'cl100k_base') return countPlainTokens(text);
  const enc = loadedEncoding(name);
  if (enc === null) return null;
  return countPiecesWith(enc.encoder, enc.pieces, o200kPieces, PIECE_CACHE_LIMIT, text);
}

/** Drops the per-piece caches of every encoding (benchmarks measure cold counts with it). */
export function clearEncodingCaches(): void {
  clearPieceCache();
  o200kPieces.clear();
}
