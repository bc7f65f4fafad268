const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Whether `text` holds a lone UTF-16 surrogate (which UTF-8 cannot encode). */
export function hasLoneSurrogate(text: string): boolean {
  LONE_SURROGATE.lastIndex = 0;
  const found = LONE_SURROGATE.test(text);
  LONE_SURROGATE.lastIndex = 0;
  return found;
}

/**
 * Reference `sanitize_surrogates`: lone UTF-16 surrogates (which no provider accepts and UTF-8
 * cannot encode) become U+FFFD; proper pairs are kept. Returns the same string when clean.
 */
export function sanitizeSurrogates(text: string): string {
  return hasLoneSurrogate(text) ? text.replace(LONE_SURROGATE, '\ufffd') : text;
}
