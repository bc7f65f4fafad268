/** Exact text returned for the third and later identical web lookup in one run (reference contract). */
export const REPEATED_EXTERNAL_LOOKUP_ERROR =
  'Error: repeated external lookup blocked. Use the results you already have to answer, or try a meaningfully different source.';

/** How many identical lookups a run may make before the next one is blocked. */
export const MAX_IDENTICAL_EXTERNAL_LOOKUPS = 2;

function pythonStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null || value === undefined) return 'None';
  return String(value);
}

/**
 * Signature of a web lookup for repeat detection: `web_fetch:<url>` or `web_search:<query>`
 * (trimmed, lower-cased; `search_term` when `query` is empty), or null for other tools or when
 * there is nothing to key on. Pure.
 */
export function externalLookupSignature(toolName: string, args: unknown): string | null {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return null;
  const record = args as Record<string, unknown>;
  if (toolName === 'web_fetch') {
    const url = pythonStr(record.url ?? '').trim().toLowerCase();
    return url ? `web_fetch:${url}` : null;
  }
  if (toolName === 'web_search') {
    const first = record.query;
    const raw = first !== undefined && first !== null && first !== '' ? first : (record.search_term ?? '');
    const query = pythonStr(raw).trim().toLowerCase();
    return query ? `web_search:${query}` : null;
  }
  return null;
}

/**
 * Counts the lookup in `seenCounts` (run-scoped state, mutated on purpose) and returns the
 * blocking error text once the same signature is seen more than twice, else null.
 */
export function repeatedExternalLookupError(toolName: string, args: unknown, seenCounts: Map<string, number>): string | null {
  const signature = externalLookupSignature(toolName, args);
  if (signature === null) return null;
  const count = (seenCounts.get(signature) ?? 0) + 1;
  seenCounts.set(signature, count);
  return count > MAX_IDENTICAL_EXTERNAL_LOOKUPS ? REPEATED_EXTERNAL_LOOKUP_ERROR : null;
}
