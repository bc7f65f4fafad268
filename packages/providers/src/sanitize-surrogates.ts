const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ANY_SURROGATE = /[\uD800-\uDFFF]/;

/** Replaces lone UTF-16 surrogates with U+FFFD (JSON encoders and APIs reject them); pairs stay. */
export function sanitizeSurrogates(text: string): string {
  if (!ANY_SURROGATE.test(text)) return text;
  return text.replace(LONE_SURROGATE, '\uFFFD');
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
