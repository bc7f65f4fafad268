/** Text helpers: truncation, surrogate repair, think-tag stripping, message splitting, safe file names, SHA-1 hex. */
export {
  codePointLength,
  sliceCodePoints,
  truncateText,
  truncateTextToTokens,
  TRUNCATION_SUFFIX,
} from './truncate-text.js';
export { stringifyTextBlocks } from './stringify-text-blocks.js';
export { safeFilename } from './safe-filename.js';
export { sanitizeSurrogates, sanitizeSurrogatesDeep, hasLoneSurrogate } from './sanitize-surrogates.js';
export { stripThink, extractThink, stripReasoningTags } from './strip-think.js';
export { splitMessage } from './split-message.js';
export { compareCodePoints } from './compare-code-points.js';
export { sha1Hex } from './sha1-hex.js';
