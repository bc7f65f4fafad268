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
 * in a tool result). `structuredContent` is added as JSON text unless a text block already carries
 * exactly that JSON (the spec asks servers to include it; many do), so a server that returns only
 * structured data is still read. An empty success is `''`. Pure: the input is not mutated.
 */
export function mapCallToolResult(result: McpCallToolResultLike): McpToolOutput {
  const parts: ContentPart[] = [];
  for (const block of result.content ?? []) parts.push(...mapBlock(block));

  const structured = result.structuredContent;
  if (structured !== undefined && structured !== null) {
    const json = JSON.stringify(structured);
    const alreadyThere = parts.some((p) => p.type === 'text' && sameJson((p as { text: string }).text, structured));
    if (!alreadyThere) parts.push({ type: 'text', text: json });
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

function sameJson(text: string, value: unknown): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return false;
  try {
    return JSON.stringify(JSON.parse(trimmed)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
