// Token counts in a named tiktoken encoding as a provider bills them: special-token text is
// plain text there (the API never lets a request's text become a control token), so nothing
// is refused, unlike the reference estimate's `countTokens`.
import { createRequire } from 'node:module';
import { clearPieceCache, countPiecesWith, countPlainTokens, getEncoder, type Encoder } from './tokenizer.js';

/** The tiktoken encodings the provider-view estimate counts with. */
export type EncodingName = 'cl100k_base' | 'o200k_base';

interface Loaded {
  /** The count of a non-empty text (special-token text as plain text); null when unavailable. */
  count(text: string): number | null;
  /** Milliseconds the ranks took to load (0 when they were already loaded for another use). */
  loadMs: number;
}

const PIECE_CACHE_LIMIT = 100_000;
// Token count per short o200k pre-split piece (natural text repeats its words).
const o200kPieces = new Map<string, number>();
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
      // The reference estimate's encoder, its pieces and its piece cache (one copy of the ranks).
      if (getEncoder() !== null) out = { count: countPlainTokens, loadMs: performance.now() - t0 };
    } else {
      const lite = require('js-tiktoken/lite') as { Tiktoken: new (ranks: unknown) => Encoder };
      const ranksModule = require('js-tiktoken/ranks/o200k_base') as { default?: unknown };
      const ranks = (ranksModule.default ?? ranksModule) as { pat_str: string };
      const encoder = new lite.Tiktoken(ranks);
      const pieces = new RegExp(ranks.pat_str, 'gu');
      out = { count: (text) => countPiecesWith(encoder, pieces, o200kPieces, PIECE_CACHE_LIMIT, text), loadMs: performance.now() - t0 };
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

/**
 * Token count of `text` in encoding `name`, equal to `encode(text, [], []).length` (special
 * tokens as plain text); `null` when the encoding cannot be loaded. Counts piece by piece with
 * a bounded per-piece cache (BPE never merges across pre-split pieces).
 */
export function countWithEncoding(name: EncodingName, text: string): number | null {
  if (text.length === 0) return 0;
  const enc = load(name);
  if (enc === null) return null;
  return enc.count(text);
}

/** Drops the per-piece caches of every encoding (benchmarks measure cold counts with it). */
export function clearEncodingCaches(): void {
  clearPieceCache();
  o200kPieces.clear();
}
