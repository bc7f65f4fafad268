// Token counts in a named tiktoken encoding as a provider bills them: special-token text is
// plain text there (the API never lets a request's text become a control token), so nothing
// is refused, unlike the reference estimate's `countTokens`.
import { createRequire } from 'node:module';
import { bytePairMerge } from './byte-pair-merge.js';
import { detachString } from './detach-string.js';
import { getEncoder } from './tokenizer.js';

/** The tiktoken encodings the provider-view estimate counts with. */
export type EncodingName = 'cl100k_base' | 'o200k_base';

interface Encoder {
  encode(text: string, allowedSpecial?: string[] | 'all', disallowedSpecial?: string[] | 'all'): number[];
  rankMap?: Map<string, number>;
}

interface Loaded {
  encoder: Encoder;
  pieces: RegExp;
  /** Token count per short pre-split piece (natural text repeats its words). */
  cache: Map<string, number>;
  /** Milliseconds the ranks took to load (0 when they were already loaded for another use). */
  loadMs: number;
}

const LONG_PIECE = 64;
const PIECE_CACHE_LIMIT = 100_000;
const PIECE_CACHE_MAX_LENGTH = 48;
const utf8 = new TextEncoder();
const loaded = new Map<EncodingName, Loaded | null>();

// Ranks are megabytes of base64 parsed in a few hundred ms, so each encoding loads on its first
// count, never at import. cl100k reuses the reference estimate's encoder (one copy of its
// ranks); `require` keeps counting synchronous, as the governor's hot path is.
function load(name: EncodingName): Loaded | null {
  const hit = loaded.get(name);
  if (hit !== undefined) return hit;
  let out: Loaded | null = null;
  const t0 = performance.now();
  try {
    const require = createRequire(import.meta.url);
    if (name === 'cl100k_base') {
      const encoder = getEncoder();
      if (encoder !== null) {
        const ranks = require('js-tiktoken/ranks/cl100k_base') as { default?: { pat_str: string }; pat_str?: string };
        const pat = (ranks.default ?? ranks).pat_str ?? '';
        out = { encoder, pieces: new RegExp(pat, 'gu'), cache: new Map(), loadMs: performance.now() - t0 };
      }
    } else {
      const lite = require('js-tiktoken/lite') as { Tiktoken: new (ranks: unknown) => Encoder };
      const ranksModule = require('js-tiktoken/ranks/o200k_base') as { default?: unknown };
      const ranks = (ranksModule.default ?? ranksModule) as { pat_str: string };
      out = { encoder: new lite.Tiktoken(ranks), pieces: new RegExp(ranks.pat_str, 'gu'), cache: new Map(), loadMs: performance.now() - t0 };
    }
  } catch {
    out = null; // counted by the byte heuristic instead
  }
  // A cl100k failure may be the reference tokenizer's test switch: try again next time.
  if (out !== null || name !== 'cl100k_base') loaded.set(name, out);
  return out;
}

/** Whether `name`'s ranks are loaded (import-time checks and benchmarks read this). */
export function encodingLoaded(name: EncodingName): boolean {
  return (loaded.get(name) ?? null) !== null;
}

/** How long loading `name`'s ranks took in this process, or `undefined` before it loaded. */
export function encodingLoadMs(name: EncodingName): number | undefined {
  return loaded.get(name)?.loadMs;
}

function encodePiece(encoder: Encoder, piece: string): number {
  const ranks = encoder.rankMap;
  if (piece.length <= LONG_PIECE || !(ranks instanceof Map)) return encoder.encode(piece, [], []).length;
  // js-tiktoken's own merge is quadratic on long pieces (base64, minified code).
  return bytePairMerge(utf8.encode(piece), (key) => ranks.get(key)).length;
}

/**
 * Token count of `text` in encoding `name`, equal to `encode(text, [], []).length` (special
 * tokens as plain text); `null` when the encoding cannot be loaded. Counts piece by piece with
 * a bounded per-piece cache (BPE never merges across pre-split pieces).
 */
export function countWithEncoding(name: EncodingName, text: string): number | null {
  if (text.length === 0) return 0;
  const enc = load(name);
  if (enc === null) return null;
  const { encoder, pieces, cache } = enc;
  let total = 0;
  pieces.lastIndex = 0;
  for (let m = pieces.exec(text); m !== null; m = pieces.exec(text)) {
    const piece = m[0];
    if (piece.length > PIECE_CACHE_MAX_LENGTH) {
      total += encodePiece(encoder, piece);
      continue;
    }
    let n = cache.get(piece);
    if (n === undefined) {
      n = encoder.encode(piece, [], []).length;
      if (cache.size >= PIECE_CACHE_LIMIT) cache.clear();
      // A match is a view into `text`: cache a copy so the key does not pin the whole text.
      cache.set(detachString(piece), n);
    }
    total += n;
  }
  return total;
}

/** Drops the per-piece caches of every encoding (benchmarks measure cold counts with it). */
export function clearEncodingCaches(): void {
  for (const enc of loaded.values()) enc?.cache.clear();
}
