// V8 represents a slice of 13 or more characters (and a regex match) as a view into its
// parent string, which keeps the whole parent alive. The token caches keep short pieces of
// long texts (a word, the tail after a message's last sync point) for as long as a message or
// the process lives; as views they would pin every message's full text, or a joined copy of
// it, several KB per message. A JSON round trip is the portable way to get a flat, independent
// copy (lone surrogates survive it unchanged).
const MIN_VIEW_LENGTH = 13;

/** A copy of `text` that shares no storage with the string it was cut from. */
export function detachString(text: string): string {
  return text.length < MIN_VIEW_LENGTH ? text : (JSON.parse(JSON.stringify(text)) as string);
}
