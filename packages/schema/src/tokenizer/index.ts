/** Tokenizers: the reference's cl100k piece counter, the o200k/cl100k encodings, loading their ranks, and which one a model uses. */
export { countTokens, tokenizerLoaded } from './tokenizer.js';
export { countWithEncoding, clearEncodingCaches } from './encoding-counter.js';
export { loadTokenizer, encodingLoaded, encodingLoadMs, ENCODINGS } from './encoder-store.js';
export type { EncodingName, LoadTokenizerOptions, TokenizerRanks } from './encoder-store.js';
export { tokenizerForModel } from './tokenizer-for-model.js';
