import { decodeTokens, encodeTokens, getEncoder } from '../tokenizer/tokenizer.js';

/** The suffix the reference appends to truncated text. */
export const TRUNCATION_SUFFIX = '\n... (truncated)';

/** Length in Unicode code points (Python `len`). */
export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** UTF-16 index just after the first `count` code points of `text` (Python `text[:count]`). */
export function codePointIndex(text: string, count: number): number {
  let i = 0;
  for (let n = 0; n < count && i < text.length; n++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return i;
}

/** Python `text[:count]` — the first `count` code points. */
export function sliceCodePoints(text: string, count: number): string {
  return text.slice(0, codePointIndex(text, count));
}

/**
 * Reference `truncate_text`: unchanged when `maxChars <= 0` or the text fits; else the first
 * `maxChars` code points plus `"\n... (truncated)"`. Idempotent on its own output only when
 * the limit leaves room for the suffix, as in the reference.
 */
export function truncateText(text: string, maxChars: number): string {
  if (maxChars <= 0 || text.length <= maxChars || codePointLength(text) <= maxChars) return text;
  return sliceCodePoints(text, maxChars) + TRUNCATION_SUFFIX;
}

const utf8 = /* @__PURE__ */ new TextEncoder();

function bytePrefix(text: string, maxBytes: number): string {
  // Code-point safe: take whole characters while they fit.
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const size = utf8.encode(ch).length;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += ch.length;
  }
  return text.slice(0, end);
}

/**
 * Reference `truncate_text_to_tokens`: unchanged when `maxTokens <= 0` or the text fits in
 * cl100k tokens; else the longest token prefix whose decoding plus `"\n... (truncated)"`
 * re-encodes within the budget, or just the first `maxTokens` tokens when even the suffix does
 * not fit. Like the reference, a cut inside a multi-byte character decodes to U+FFFD. Without
 * tiktoken (or for special-token text) it budgets UTF-8 bytes instead.
 */
export function truncateTextToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return text;
  const tokens = getEncoder() === null ? null : encodeTokens(text);
  if (tokens === null) {
    const size = utf8.encode(text).length;
    if (size <= maxTokens) return text;
    const suffixBytes = utf8.encode(TRUNCATION_SUFFIX).length;
    if (maxTokens <= suffixBytes) return bytePrefix(text, maxTokens);
    return bytePrefix(text, maxTokens - suffixBytes) + TRUNCATION_SUFFIX;
  }
  if (tokens.length <= maxTokens) return text;
  for (let n = maxTokens; n >= 1; n--) {
    const candidate = decodeTokens(tokens.slice(0, n)) + TRUNCATION_SUFFIX;
    const encoded = encodeTokens(candidate);
    if (encoded !== null && encoded.length <= maxTokens) return candidate;
  }
  return decodeTokens(tokens.slice(0, maxTokens));
}
