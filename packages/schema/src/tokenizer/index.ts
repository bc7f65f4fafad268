/** Tokenizers: the reference's cl100k piece counter, the o200k/cl100k encodings, and which one a model uses. */
export { countTokens, tokenizerLoaded } from './tokenizer.js';
export { countWithEncoding, encodingLoaded, encodingLoadMs, clearEncodingCaches } from './encoding-counter.js';
export type { EncodingName } from './encoding-counter.js';
export { tokenizerForModel } from './tokenizer-for-model.js';
