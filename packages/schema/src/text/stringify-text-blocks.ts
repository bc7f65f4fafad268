/**
 * Reference `stringify_text_blocks`: the texts of a list made only of `{type: "text", text:
 * string}` blocks, joined by newlines; `null` as soon as one block is something else.
 */
export function stringifyTextBlocks(content: readonly unknown[]): string | null {
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block !== 'object' || block === null || Array.isArray(block)) return null;
    const record = block as Record<string, unknown>;
    if (record['type'] !== 'text' || typeof record['text'] !== 'string') return null;
    parts.push(record['text']);
  }
  return parts.join('\n');
}
