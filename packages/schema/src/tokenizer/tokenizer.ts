import { createRequire } from 'node:module';
import { bytePairMerge } from './byte-pair-merge.js';
import { detachString } from '../util/detach-string.js';

/** The slice of js-tiktoken's `Tiktoken` we use. */
export interface Encoder {
  encode(text: string, allowedSpecial?: string[] | 'all', disallowedSpecial?: string[] | 'all'): number[];
  decode(tokens: number[]): string;
  /** js-tiktoken's rank table (bytes joined by "," → rank); marked internal there, so optional here. */
  rankMap?: Map<string, number>;
}

// Pieces longer than this go through our O(n log n) merge: js-tiktoken's is quadratic.
const LONG_PIECE = 64;
const utf8 = new TextEncoder();

function encodePiece(encoder: Encoder, piece: string): number[] {
  const ranks = encoder.rankMap;
  if (piece.length <= LONG_PIECE || !(ranks instanceof Map)) return encoder.encode(piece, [], []);
  return bytePairMerge(utf8.encode(piece), (key) => ranks.get(key));
}

type LoadState = { kind: 'unloaded' } | { kind: 'loaded'; encoder: Encoder; pieces: RegExp } | { kind: 'unavailable'; reason: unknown };

let state: LoadState = { kind: 'unloaded' };
let forcedUnavailable = false;

// The cl100k ranks are ~1 MB of base64 that take a few hundred ms to parse, so they are loaded
// on the first count, never at import. `require` keeps counting synchronous (the governor's
// hot path is synchronous) without a top-level import.
function load(): LoadState {
  if (forcedUnavailable) return { kind: 'unavailable', reason: new Error('tiktoken disabled') };
  if (state.kind !== 'unloaded') return state;
  try {
    const require = createRequire(import.meta.url);
    const lite = require('js-tiktoken/lite') as { Tiktoken: new (ranks: unknown) => Encoder };
    const ranksModule = require('js-tiktoken/ranks/cl100k_base') as { default?: unknown };
    const ranks = (ranksModule.default ?? ranksModule) as { pat_str: string };
    // The same pre-split pattern js-tiktoken uses, for counting piece by piece.
    state = { kind: 'loaded', encoder: new lite.Tiktoken(ranks), pieces: new RegExp(ranks.pat_str, 'gu') };
  } catch (reason) {
    state = { kind: 'unavailable', reason };
  }
  return state;
}

/** The cl100k_base encoder, loading its ranks on first use; `null` when unavailable. */
export function getEncoder(): Encoder | null {
  const s = load();
  return s.kind === 'loaded' ? s.encoder : null;
}

/** Whether the ranks have been loaded (import-time checks and benchmarks read this). */
export function tokenizerLoaded(): boolean {
  return state.kind === 'loaded';
}

/**
 * Test hook: pretend tiktoken is missing (`true`) so the byte-heuristic fallback can be
 * exercised, or restore it (`false`).
 */
export function setTokenizerUnavailableForTesting(unavailable: boolean): void {
  forcedUnavailable = unavailable;
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
 * whole encode: BPE never merges across pre-split pieces. Shared by every encoding we count in.
 */
export function countPiecesWith(encoder: Encoder, pieces: RegExp, cache: Map<string, number>, cacheLimit: number, text: string): number {
  let total = 0;
  pieces.lastIndex = 0;
  for (let m = pieces.exec(text); m !== null; m = pieces.exec(text)) {
    const piece = m[0];
    if (piece.length > PIECE_CACHE_MAX_LENGTH) {
      total += encodePiece(encoder, piece).length;
      continue;
    }
    let n = cache.get(piece);
    if (n === undefined) {
      // A pre-split piece re-splits to itself, so encoding it alone is its BPE count.
      n = encoder.encode(piece, [], []).length;
      if (cache.size >= cacheLimit) cache.clear();
      // A match is a view into `text`: cache a copy so the key does not pin the whole text.
      cache.set(detachString(piece), n);
    }
    total += n;
  }
  return total;
}

function countPieces(encoder: Encoder, pieces: RegExp, text: string): number {
  return countPiecesWith(encoder, pieces, pieceCounts, PIECE_CACHE_LIMIT, text);
}

/**
 * cl100k token count of `text` with special-token text counted as plain text (as providers
 * bill it), or `null` when the encoder is unavailable. Shares {@link countTokens}' piece cache.
 */
export function countPlainTokens(text: string): number | null {
  if (text.length === 0) return 0;
  const s = load();
  return s.kind === 'loaded' ? countPieces(s.encoder, s.pieces, text) : null;
}

/** Drops the per-piece count cache (benchmarks measure cold counts with it). */
export function clearPieceCache(): void {
  pieceCounts.clear();
}

/**
 * cl100k token count of `text` as the reference's `len(encode(text))`, or `null` when the
 * encoder refuses it (special-token text) or is unavailable — callers then fall back to bytes.
 * Counts piece by piece with a per-piece cache, which equals a full encode (BPE never merges
 * across pre-split pieces) at a fraction of the cost.
 */
export function countTokens(text: string): number | null {
  if (text.length === 0) return 0;
  const s = load();
  if (s.kind !== 'loaded' || containsSpecialToken(text)) return null;
  return countPieces(s.encoder, s.pieces, text);
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
  const encoder = getEncoder();
  if (encoder === null || containsSpecialToken(text)) return null;
  const pieces = (load() as { pieces: RegExp }).pieces;
  // Piece by piece equals a whole encode (BPE never merges across pre-split pieces).
  const out: number[] = [];
  pieces.lastIndex = 0;
  for (let m = pieces.exec(text); m !== null; m = pieces.exec(text)) {
    for (const token of encodePiece(encoder, m[0])) out.push(token);
  }
  return out;
}

/** Decodes tokens (U+FFFD where a cut split a multi-byte character, as the reference). */
export function decodeTokens(tokens: number[]): string {
  const encoder = getEncoder();
  if (encoder === null) throw new Error('tokenizer unavailable');
  return encoder.decode(tokens);
}
