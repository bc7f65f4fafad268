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
}
