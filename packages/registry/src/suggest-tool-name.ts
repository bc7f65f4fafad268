// Matches Python's str.isalnum: letters (L*) and numeric characters (N*).
const NOT_ALNUM = /[^\p{L}\p{N}]/gu;

/**
 * The reference's lookup key: drop every non-alphanumeric character (Unicode-aware), then
 * lower-case. `READ-FILE`, `readFile` and `read file` all give `readfile`.
 */
export function toolLookupKey(name: string): string {
  return name.replace(NOT_ALNUM, '').toLowerCase();
}

/**
 * The one registered name whose lookup key equals `name`'s, or `null` when there is none, when
 * the key is empty, or when several names match (ambiguous). A suggestion is only ever shown to
 * the model; nothing is executed under it.
 */
export function suggestToolName(name: string, registered: Iterable<string>): string | null {
  const key = toolLookupKey(name);
  if (key === '') return null;
  let found: string | null = null;
  for (const candidate of registered) {
    if (toolLookupKey(candidate) !== key) continue;
    if (found !== null) return null;
    found = candidate;
  }
  return found;
}
