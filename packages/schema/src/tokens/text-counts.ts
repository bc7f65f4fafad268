// Token counts of whole texts, kept by the estimator that counts in one encoding. A message's
// count is cached per message object (message-cache-entry.ts), but a governed copy is a new
// object that mostly holds the same strings: a tool result with only its call id renamed
// (Mistral's 9-character ids), a call turn with a placeholder thought signature (Gemini), an
// assistant turn inserted between a tool result and a user message. Counting a copy then finds
// its unchanged texts here (the same string objects, whose hash the engine keeps, so a hit costs
// one map lookup) and runs the tokenizer only on what changed. Pieces of texts are cached per
// encoding by the tokenizer (tokenizer.ts); this saves the pre-split pass over the whole text.
import { tokenizerSwitchedOff } from '../tokenizer/encoder-store.js';
import { countWithEncoding, type EncodingName } from '../tokenizer/encoding-counter.js';
import { utf8Length } from '../tokenizer/tokenizer.js';

/** Texts kept at most (then the cache starts again empty). */
const MAX_TEXTS = 4_096;
/**
 * Characters the kept texts may add up to (they are held as keys): 2 MB at most. A text longer
 * than an eighth of it is counted every time instead of displacing everything else. (A text that
 * is the engine's view into a longer string keeps that string alive while it is kept; messages'
 * fields are whole strings, and the count bound limits how many are held.)
 */
const MAX_CHARS = 1 << 20;

/**
 * Token counts of texts in one encoding, bounded by count and total length (cleared when full:
 * what a count needs again is what the same call or the one before counted). Only counts the
 * tokenizer made are kept: while tiktoken is switched off for tests nothing is read or kept, so
 * a count never comes back with the other source.
 */
export class TextCounts {
  readonly #encoding: EncodingName;
  readonly #counts = new Map<string, number>();
  #chars = 0;

  constructor(encoding: EncodingName) {
    this.#encoding = encoding;
  }

  /** Texts kept now (tests read it). */
  get size(): number {
    return this.#counts.size;
  }

  /**
   * `[tokens, heuristic]` of `texts` as `countTexts` (provider-token-counts.ts) gives them: the
   * tokenizer's counts, or UTF-8 bytes for each text while tiktoken is switched off for tests.
   * Throws `TokenizerNotLoadedError` where the encoding's ranks need `await loadTokenizer()`.
   */
  count(texts: readonly string[]): [number, boolean] {
    const off = tokenizerSwitchedOff();
    let total = 0;
    let heuristic = false;
    for (const text of texts) {
      let n = off ? undefined : this.#counts.get(text);
      if (n === undefined) {
        const counted = countWithEncoding(this.#encoding, text);
        if (counted === null) {
          heuristic = true;
          total += utf8Length(text);
          continue;
        }
        n = counted;
        this.#keep(text, n);
      }
      total += n;
    }
    return [total, heuristic];
  }

  #keep(text: string, n: number): void {
    const length = text.length;
    if (length > MAX_CHARS >> 3) return;
    if (this.#counts.size >= MAX_TEXTS || this.#chars + length > MAX_CHARS) {
      this.#counts.clear();
      this.#chars = 0;
    }
    this.#counts.set(text, n);
    this.#chars += length;
  }
}
