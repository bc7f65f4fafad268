import type { ContentPart } from '@nanobot/schema';

/** The parts of an MCP `tools/call` result this package reads (the SDK's `CallToolResult`, loosely typed). */
export interface McpCallToolResultLike {
  content?: readonly { type: string; [key: string]: unknown }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/** An MCP result as the model reads it: plain text when there is only text, else content parts. */
export interface McpToolOutput {
  /** A string when every block was text (joined with newlines), else OpenAI-style parts. */
  content: string | ContentPart[];
  /** True when the server flagged the result with `isError`. */
  isError: boolean;
  /** The server's `structuredContent`, untouched, for programmatic callers. */
  structuredContent?: Record<string, unknown>;
}

/**
 * Maps an MCP call result to what the model reads. Text blocks stay text; image blocks become
 * `image_url` parts with a data: URL; embedded text resources become text headed by their URI;
 * audio, binary resources and resource links become a one-line note (chat models cannot take them
 * in a tool result). `structuredContent` is sent once: the spec asks a server to mirror it in a
 * text block, so when the text already carries it (see {@link textMirrorsStructure}) the model
 * reads only the text; otherwise (no text, or a summary that leaves data out) the JSON is added,
 * so a server that returns only structured data is still read. An empty success is `''`. Pure:
 * the input is not mutated.
 */
export function mapCallToolResult(result: McpCallToolResultLike): McpToolOutput {
  const parts: ContentPart[] = [];
  for (const block of result.content ?? []) parts.push(...mapBlock(block));

  const structured = result.structuredContent;
  if (structured !== undefined && structured !== null) {
    const texts = parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text);
    if (!textMirrorsStructure(texts, structured)) parts.push({ type: 'text', text: JSON.stringify(structured) });
  }

  const isError = result.isError === true;
  const out: McpToolOutput = { content: collapse(parts, isError), isError };
  if (structured !== undefined && structured !== null) out.structuredContent = structured;
  return out;
}

function mapBlock(block: { type: string; [key: string]: unknown }): ContentPart[] {
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: String(block.text ?? '') }];
    case 'image': {
      const mime = String(block.mimeType ?? 'image/png');
      return [{ type: 'image_url', image_url: { url: `data:${mime};base64,${String(block.data ?? '')}` } }];
    }
    case 'audio':
      return [{ type: 'text', text: `[audio ${String(block.mimeType ?? 'unknown type')} omitted: not supported in tool results]` }];
    case 'resource_link': {
      const label = typeof block.title === 'string' ? block.title : String(block.name ?? '');
      return [{ type: 'text', text: `[resource link: ${label} <${String(block.uri ?? '')}>]` }];
    }
    case 'resource': {
      const res = (block.resource ?? {}) as { uri?: unknown; text?: unknown; blob?: unknown; mimeType?: unknown };
      const uri = String(res.uri ?? '');
      if (typeof res.text === 'string') return [{ type: 'text', text: `[resource ${uri}]\n${res.text}` }];
      const mime = typeof res.mimeType === 'string' ? res.mimeType : '';
      if (typeof res.blob === 'string' && mime.startsWith('image/')) {
        return [{ type: 'image_url', image_url: { url: `data:${mime};base64,${res.blob}` } }];
      }
      return [{ type: 'text', text: `[binary resource ${uri}${mime ? ` (${mime})` : ''} omitted]` }];
    }
    default:
      return [{ type: 'text', text: `[unsupported MCP content block: ${block.type}]` }];
  }
}

function collapse(parts: ContentPart[], isError: boolean): string | ContentPart[] {
  // Empty success stays empty: the registry replaces it with its standard "no output" text.
  if (parts.length === 0) return isError ? 'Error: the MCP tool reported a failure without details' : '';
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => (p as { text: string }).text).join('\n');
  return parts;
}

/**
 * Whether the text blocks already say what `structured` holds, so sending its JSON too would make
 * the model read the same data twice: a block is that JSON (any formatting), or the JSON of its
 * only property's value (the official memory server sends `{ entities: [...] }` as the array's
 * JSON), or the text contains every scalar leaf of the structure (the filesystem server's
 * `{ content: "<the text>" }`; a readable listing of every value). A summary that leaves a value
 * out is not a mirror. Pure.
 */
export function textMirrorsStructure(texts: readonly string[], structured: Record<string, unknown>): boolean {
  if (texts.length === 0) return false;
  const keys = Object.keys(structured);
  if (texts.some((t) => sameJson(t, structured) || (keys.length === 1 && sameJson(t, structured[keys[0]])))) return true;
  const joined = texts.join('\n');
  const leaves: (string | { token: string })[] = [];
  collectLeaves(structured, leaves, 0);
  // No scalar data at all ({} or only empty arrays): the text says at least as much.
  return leaves.every((leaf) => (typeof leaf === 'string' ? joined.includes(leaf) : containsToken(joined, leaf.token)));
}

/** `token` (a number or a flag) as a whole word: "1" is not found in "12". */
function containsToken(text: string, token: string): boolean {
  const escaped = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w.])${escaped}($|[^\\w]|\\.(?!\\d))`).test(text);
}

function collectLeaves(value: unknown, out: (string | { token: string })[], depth: number): void {
  if (value === null || value === undefined) return;
  if (typeof value === 'string') {
    if (value.trim() !== '') out.push(value.trim());
    return;
  }
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    out.push({ token: String(value) });
    return;
  }
  if (depth > 32 || typeof value !== 'object') return;
  for (const child of Array.isArray(value) ? value : Object.values(value)) collectLeaves(child, out, depth + 1);
}

function sameJson(text: string, value: unknown): boolean {
  if (value === undefined) return false;
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return false;
  try {
    return JSON.stringify(JSON.parse(trimmed)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
