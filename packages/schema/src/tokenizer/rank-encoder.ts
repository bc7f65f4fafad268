// The encoder built from js-tiktoken's rank data: what we used of js-tiktoken's `Tiktoken`
// (rank table, encode with special-token text as plain text; decoding is rank-decoder.ts, which
// only truncation by tokens uses, so a program that only counts leaves it out), without the rest of its
// module (special-token handling we never enable, a model-name list, base64-js), which every
// browser bundle carried (1.9 KB gzip, more than this file). Equal to `Tiktoken` for every input
// (rank-encoder.test.ts compares them on both encodings' whole tables and on sample texts).
import { bytePairMerge } from './byte-pair-merge.js';

/** js-tiktoken's rank data of one encoding: the default export of `js-tiktoken/ranks/<encoding>`. */
export interface TokenizerRanks {
  pat_str: string;
  special_tokens: Record<string, number>;
  bpe_ranks: string;
}

// Base64 digit values by char code (standard and URL-safe alphabets, as js-tiktoken's base64-js).
const SEXTETS = new Uint8Array(128);
const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
for (let i = 0; i < 64; i++) SEXTETS[DIGITS.charCodeAt(i)] = i;
SEXTETS[45] = 62; // '-'
SEXTETS[95] = 63; // '_'

function base64Bytes(text: string): Uint8Array {
  let length = text.length;
  while (length > 0 && text.charCodeAt(length - 1) === 61) length--; // '=' padding
  const out = new Uint8Array((length * 3) >> 2);
  let bits = 0;
  let acc = 0;
  let j = 0;
  for (let i = 0; i < length; i++) {
    acc = ((acc << 6) | SEXTETS[text.charCodeAt(i)]!) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[j++] = (acc >> bits) & 255;
    }
  }
  return out;
}

const utf8 = new TextEncoder();

/** One encoding's encoder: its ranks parsed once (the costly part of loading an encoding). */
export class RankEncoder {
  /** Rank by byte sequence spelled `"104,105"` (js-tiktoken's key, read by the long-piece merge). */
  readonly rankMap = new Map<string, number>();
  /** The ranks' special tokens (their ids decode as their text). */
  readonly specialTokens: Readonly<Record<string, number>>;
  readonly #pieces: RegExp;

  /** Parses `ranks` (js-tiktoken's format: lines of a name, the first rank, base64 tokens). */
  constructor(ranks: TokenizerRanks) {
    this.#pieces = new RegExp(ranks.pat_str, 'gu');
    this.specialTokens = ranks.special_tokens;
    for (const line of ranks.bpe_ranks.split('\n')) {
      if (line === '') continue;
      const fields = line.split(' ');
      const offset = Number.parseInt(fields[1]!, 10);
      for (let i = 2; i < fields.length; i++) {
        this.rankMap.set(base64Bytes(fields[i]!).join(','), offset + i - 2);
      }
    }
  }

  /** The tokens of `text`, special-token text as plain text (js-tiktoken's `encode(text, [], [])`). */
  encode(text: string): number[] {
    const out: number[] = [];
    for (const m of text.matchAll(this.#pieces)) {
      const bytes = utf8.encode(m[0]);
      const whole = this.rankMap.get(bytes.join(','));
      if (whole !== undefined) out.push(whole);
      else for (const rank of bytePairMerge(bytes, (key) => this.rankMap.get(key))) out.push(rank);
    }
    return out;
  }

  /**
   * `encode(piece).length` for one pre-split piece (a match of the encoding's pattern, which
   * splits to itself). Short ASCII pieces — the words and ids a cache has not seen, a new
   * 9-character tool-call id is three or four of them — are merged here with tiktoken's own
   * quadratic merge over the piece's few bytes, without the re-split, the UTF-8 copy, the heap
   * and the token list, which cost ~10× more than the merge itself at that size; the rest goes
   * through {@link encode}.
   */
  countPiece(piece: string): number {
    const n = piece.length;
    if (n > SHORT_PIECE) return this.encode(piece).length;
    const codes: string[] = [];
    for (let i = 0; i < n; i++) {
      const c = piece.charCodeAt(i);
      if (c >= 0x80) return this.encode(piece).length;
      codes.push(DECIMAL[c]!);
    }
    if (n <= 1) return n;
    const rankOf = (from: number, to: number): number => {
      let key = codes[from]!;
      for (let i = from + 1; i < to; i++) key += ',' + codes[i]!;
      return this.rankMap.get(key) ?? NO_RANK;
    };
    if (rankOf(0, n) !== NO_RANK) return 1;
    // tiktoken's `_byte_pair_merge`: `starts` are the parts' first bytes (and n); `ranks[i]` the
    // rank of parts i and i + 1 merged. The lowest rank merges first, the leftmost on ties.
    const starts: number[] = [];
    for (let i = 0; i <= n; i++) starts.push(i);
    const ranks: number[] = [];
    for (let i = 0; i + 2 <= n; i++) ranks.push(rankOf(i, i + 2));
    while (ranks.length > 0) {
      let best = 0;
      for (let i = 1; i < ranks.length; i++) if (ranks[i]! < ranks[best]!) best = i;
      if (ranks[best] === NO_RANK) break;
      // Parts best and best + 1 become one: the pair ranks around it are taken again.
      starts.splice(best + 1, 1);
      ranks.splice(best, 1);
      if (best < ranks.length) ranks[best] = best + 2 < starts.length ? rankOf(starts[best]!, starts[best + 2]!) : NO_RANK;
      if (best > 0) ranks[best - 1] = rankOf(starts[best - 1]!, starts[best + 1]!);
    }
    return starts.length - 1;
  }
}

/** Longest piece {@link RankEncoder.countPiece} merges itself (in UTF-16 units, ASCII only). */
const SHORT_PIECE = 24;
const NO_RANK = Number.POSITIVE_INFINITY;
/** The rank keys' spelling of each ASCII byte. */
const DECIMAL: readonly string[] = Array.from({ length: 128 }, (_, c) => String(c));
