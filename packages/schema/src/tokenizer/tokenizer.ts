import { detachString } from '../util/detach-string.js';
import { loadedEncoding, encodingLoaded, type Encoder } from './encoder-store.js';
import { decodeRanks } from './rank-decoder.js';

export type { Encoder } from './encoder-store.js';
export { setTokenizerUnavailableForTesting } from './encoder-store.js';


/**
 * The cl100k_base encoder, loading its ranks on first use where that can be done synchronously
 * (encoder-store.ts); `null` only when tiktoken is switched off for tests. Throws
 * `TokenizerNotLoadedError` where the ranks need `await loadTokenizer()` first.
 */
export function getEncoder(): Encoder | null {
  return loadedEncoding('cl100k_base')?.encoder ?? null;
}

/** Whether the cl100k ranks have been loaded (import-time checks and benchmarks read this). */
export function tokenizerLoaded(): boolean {
  return encodingLoaded('cl100k_base');
}

const SPECIAL_TOKENS = ['<|endoftext|>', '<|fim_prefix|>', '<|fim_middle|>', '<|fim_suffix|>', '<|endofprompt|>'];

/** Whether `text` contains special-token text, which the reference's encode refuses. */
export function containsSpecialToken(text: string): boolean {
  if (!text.includes('<|')) return false;
  for (const special of SPECIAL_TOKENS) if (text.includes(special)) return true;
  return false;
}

const PIECE_CACHE_LIMIT = 200_000;
const PIECE_CACHE_MAX_LENGTH = 48;
// Token count per pre-split piece: natural text repeats its words, so most pieces hit.
const pieceCounts = new Map<string, number>();

/**
 * Token count of `text` piece by piece, with special-token text as plain text (`encode(piece,
 * [], [])`), caching short pieces in `cache` (cleared when it reaches `cacheLimit`). Equals a
 * whole encode: BPE never merges across pre-split pieces. Shared by every encoding we count in
 * (cl100k and o200k, whose patterns split lowercase letters and digits alike; see
 * {@link countLowerAlnum}).
 */
export function countPiecesWith(encoder: Encoder, pieces: RegExp, cache: Map<string, number>, cacheLimit: number, text: string): number {
  if (text.length <= LOWER_ALNUM_MAX && isLowerAlnum(text)) return countLowerAlnum(encoder, cache, cacheLimit, text);
  let total = 0;
  pieces.lastIndex = 0;
  for (let m = pieces.exec(text); m !== null; m = pieces.exec(text)) total += countPieceWith(encoder, cache, cacheLimit, m[0]);
  return total;
}

/** One pre-split piece's count, through `cache` (see {@link countPiecesWith}). */
function countPieceWith(encoder: Encoder, cache: Map<string, number>, cacheLimit: number, piece: string): number {
  if (piece.length > PIECE_CACHE_MAX_LENGTH) return encoder.encode(piece).length;
  let n = cache.get(piece);
  if (n === undefined) {
    // A pre-split piece re-splits to itself, so encoding it alone is its BPE count.
    n = encoder.countPiece(piece);
    if (cache.size >= cacheLimit) cache.clear();
    // A match is a view into `text`: cache a copy so the key does not pin the whole text.
    cache.set(detachString(piece), n);
  }
  return n;
}

/** Longest text {@link countLowerAlnum} splits (a longer one is rarely all letters and digits). */
const LOWER_ALNUM_MAX = 64;

/** Whether `text` is only ASCII lowercase letters and digits. */
function isLowerAlnum(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 122 || c < 48 || (c > 57 && c < 97)) return false;
  }
  return true;
}

/**
 * {@link countPiecesWith} of a text of lowercase ASCII letters and digits (ids such as
 * Mistral's 9 hex digits, hashes, single words), split without the pattern: both encodings'
 * patterns make each run of letters one piece (no apostrophe, no capital to split at) and each
 * run of digits pieces of three from its start. A one-character piece is one token (every byte
 * is). Running the pattern cost ~1 µs for a 9-character id, mostly in its matches.
 */
function countLowerAlnum(encoder: Encoder, cache: Map<string, number>, cacheLimit: number, text: string): number {
  let total = 0;
  const n = text.length;
  for (let i = 0; i < n;) {
    let j = i + 1;
    if (text.charCodeAt(i) >= 97) while (j < n && text.charCodeAt(j) >= 97) j++;
    else while (j < n && j - i < 3 && text.charCodeAt(j) <= 57) j++;
    total += j - i === 1 ? 1 : countPieceWith(encoder, cache, cacheLimit, text.slice(i, j));
    i = j;
  }
  return total;
}

function countPieces(encoder: Encoder, pieces: RegExp, text: string): number {
  return countPiecesWith(encoder, pieces, pieceCounts, PIECE_CACHE_LIMIT, text);
}

/**
 * cl100k token count of `text` with special-token text counted as plain text (as providers
 * bill it), or `null` when tiktoken is switched off for tests. Shares {@link countTokens}' piece
 * cache. Throws `TokenizerNotLoadedError` where the ranks need `await loadTokenizer()` first.
 */
export function countPlainTokens(text: string): number | null {
  if (text.length === 0) return 0;
  const enc = loadedEncoding('cl100k_base');
  return enc === null ? null : countPieces(enc.encoder, enc.pieces, text);
}

/** Drops the per-piece count cache (benchmarks measure cold counts with it). */
export function clearPieceCache(): void {
  pieceCounts.clear();
}

/**
 * cl100k token count of `text` as the reference's `len(encode(text))`, or `null` when the
 * encoder refuses it (special-token text; or tiktoken is switched off for tests) — callers then
 * fall back to bytes, as the reference does. Throws `TokenizerNotLoadedError` where the
 * ranks need `await loadTokenizer()` first: never bytes for want of the ranks.
 * Counts piece by piece with a per-piece cache, which equals a full encode (BPE never merges
 * across pre-split pieces) at a fraction of the cost.
 */
export function countTokens(text: string): number | null {
  if (text.length === 0) return 0;
  const enc = loadedEncoding('cl100k_base');
  if (enc === null || containsSpecialToken(text)) return null;
  return countPieces(enc.encoder, enc.pieces, text);
}

/** UTF-8 byte length, as Python's `len(text.encode("utf-8"))` (lone surrogates count as U+FFFD). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Encodes with the same refusal rule as {@link countTokens}; `null` when refused/unavailable. */
export function encodeTokens(text: string): number[] | null {
  const enc = loadedEncoding('cl100k_base');
  if (enc === null || containsSpecialToken(text)) return null;
  const { encoder, pieces } = enc;
  // Piece by piece equals a whole encode (BPE never merges across pre-split pieces).
  const out: number[] = [];
  pieces.lastIndex = 0;
  for (let m = pieces.exec(text); m !== null; m = pieces.exec(text)) {
    for (const token of encoder.encode(m[0])) out.push(token);
  }
  return out;
}

/** Decodes tokens (U+FFFD where a cut split a multi-byte character, as the reference). */
export function decodeTokens(tokens: number[]): string {
  const encoder = getEncoder();
  if (encoder === null) throw new Error('tokenizer unavailable');
  return decodeRanks(encoder, tokens);
}
