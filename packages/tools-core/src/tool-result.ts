import type { ContentPart, ImagePart, TextPart } from '@nanobot/schema';

/** What the model reads back from a tool: plain text or a list of content blocks (text, images…). */
export type ToolContent = string | readonly ContentPart[];

// Symbol.for, not a local Symbol: a plugin bundling its own copy of tools-core must still produce
// results the registry recognises.
const TOOL_RESULT_BRAND: unique symbol = Symbol.for('nanobot.toolResult') as never;

/**
 * A tool's answer with an explicit error flag. Errors are flagged, never inferred from text: a
 * file whose first line reads "Error: …" is still a successful read.
 */
export interface ToolResult {
  readonly content: ToolContent;
  readonly isError: boolean;
  readonly [TOOL_RESULT_BRAND]: true;
}

function make(content: ToolContent, isError: boolean): ToolResult {
  if (typeof content !== 'string' && !Array.isArray(content)) {
    throw new TypeError(`tool result content must be a string or a content-block list, got ${typeof content}`);
  }
  return Object.freeze({
    content: typeof content === 'string' ? content : Object.freeze([...content]),
    isError,
    [TOOL_RESULT_BRAND]: true as const,
  });
}

/** Options of {@link toolResult.image}. */
export interface ImageResultOptions {
  /** Base64 data (without the `data:` prefix). */
  data: string;
  /** e.g. `image/png`. */
  mimeType: string;
  /** Optional caption placed before the image. */
  text?: string;
}

/** Builders for {@link ToolResult}; results are frozen. */
export const toolResult = {
  /** A successful text result. */
  text(text: string): ToolResult {
    return make(text, false);
  },
  /** A successful result made of content blocks (e.g. image + caption). */
  content(blocks: readonly ContentPart[]): ToolResult {
    return make(blocks, false);
  },
  /** An image (as an OpenAI `image_url` data URL block), optionally with a caption. */
  image(options: ImageResultOptions): ToolResult {
    const blocks: ContentPart[] = [];
    if (options.text !== undefined) blocks.push({ type: 'text', text: options.text } satisfies TextPart);
    blocks.push({
      type: 'image_url',
      image_url: { url: `data:${options.mimeType};base64,${options.data}` },
    } satisfies ImagePart);
    return make(blocks, false);
  },
  /** A failure the model should read and react to (the registry appends the retry hint). */
  error(content: ToolContent): ToolResult {
    return make(content, true);
  },
  /** A result with an explicit flag (the reference's `ToolResult(content, is_error)`). */
  of(content: ToolContent, isError = false): ToolResult {
    return make(content, isError);
  },
};

/** True for any {@link ToolResult}, whichever copy of this package built it. */
export function isToolResult(value: unknown): value is ToolResult {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_RESULT_BRAND] === true;
}

/** The reference's `is_tool_error_result`: a {@link ToolResult} flagged as an error; plain text never is. */
export function isToolErrorResult(value: unknown): value is ToolResult {
  return isToolResult(value) && value.isError;
}
