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

/**
 * `sanitizeSurrogates` over every string inside a JSON-like value. Returns the same object when
 * nothing changed, so callers can skip copies cheaply; never mutates its input.
 */
export function sanitizeSurrogatesDeep<T>(value: T): T {
  if (typeof value === 'string') return sanitizeSurrogates(value) as T;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const next = sanitizeSurrogatesDeep(value[i]);
      if (next !== value[i]) {
        out ??= value.slice();
        out[i] = next;
      }
    }
    return (out ?? value) as T;
  }
  if (typeof value === 'object' && value !== null) {
    let out: Record<string, unknown> | null = null;
    for (const [key, item] of Object.entries(value)) {
      const next = sanitizeSurrogatesDeep(item);
      const cleanKey = sanitizeSurrogates(key);
      if (next !== item || cleanKey !== key) {
        out ??= { ...(value as Record<string, unknown>) };
        if (cleanKey !== key) delete out[key];
        out[cleanKey] = next;
      }
    }
    return (out ?? value) as T;
  }
  return value;
}
