import { codePointLength, truncateText } from '@nanobot/schema';
import type { ArtifactRequest, ArtifactStore } from '../../offload/artifact-store.js';
import { TOOL_RESULT_OFFLOAD_EXEMPT_TOOLS, TOOL_RESULT_PREVIEW_CHARS } from '../../constants.js';
import { ensureNonemptyToolResult } from './ensure-nonempty-tool-result.js';

/** Options of {@link normalizeToolResult}. */
export interface NormalizeToolResultOptions {
  /** Results longer than this (code points) are offloaded or truncated; `<= 0` disables both. */
  maxToolResultChars: number;
  /** Where oversized results go; without one nothing is offloaded (reference: no workspace). */
  artifactStore?: ArtifactStore | null;
  /** Session bucket for offloaded results. */
  sessionKey?: string | null;
}

/** What {@link normalizeToolResultDetailed} did, for the governance report. */
export interface NormalizedToolResult {
  content: unknown;
  /** Location the full result was saved to, when it was offloaded. */
  offloadedTo?: string;
  /** Original size in code points of an offloaded or truncated result. */
  originalChars?: number;
  truncated?: boolean;
  emptyMarker?: boolean;
  /** The store threw; the result stayed inline (truncated). */
  offloadError?: string;
}

const PERSISTED_HEADER = '[tool output persisted]\nFull output saved to: ';

function sliceCodePoints(text: string, n: number): string {
  let i = 0;
  let count = 0;
  while (i < text.length && count < n) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
    count++;
  }
  return text.slice(0, i);
}

/** The reference text that replaces an offloaded result in the model copy. */
export function renderPersistedReference(location: string, text: string): string {
  const size = codePointLength(text);
  let out = `${PERSISTED_HEADER}${location}\nOriginal size: ${size} chars\nPreview:\n${sliceCodePoints(text, TOOL_RESULT_PREVIEW_CHARS)}`;
  if (size > TOOL_RESULT_PREVIEW_CHARS) out += '\n...\n(Read the saved file if you need the full output.)';
  return out;
}

function offloadable(content: unknown): { text: string; body: string; extension: 'txt' | 'json' } | null {
  if (typeof content === 'string') return { text: content, body: content, extension: 'txt' };
  if (!Array.isArray(content)) return null;
  const allText = content.every(
    (p) => p !== null && typeof p === 'object' && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string',
  );
  if (!allText) return null;
  const text = content.map((p) => (p as { text: string }).text).join('\n');
  return { text, body: JSON.stringify(content, null, 2), extension: 'json' };
}

/**
 * What the store is asked to save for an oversized offloadable result (a text, or a list of text
 * blocks, longer than `maxToolResultChars` code points), or null when nothing is offloaded (no
 * store, limit `<= 0`, short, other content).
 */
export function offloadRequest(content: unknown, options: NormalizeToolResultOptions & { toolCallId: string }): { request: ArtifactRequest; text: string; size: number } | null {
  const max = options.maxToolResultChars;
  if (!options.artifactStore || !(max > 0)) return null;
  const src = offloadable(content);
  // UTF-16 length bounds the code-point count, so short texts skip the count.
  if (src === null || src.text.length <= max) return null;
  const size = codePointLength(src.text);
  if (size <= max) return null;
  return { request: { sessionKey: options.sessionKey ?? null, toolCallId: options.toolCallId, body: src.body, extension: src.extension }, text: src.text, size };
}

function persistDetailed(
  content: unknown,
  options: NormalizeToolResultOptions & { toolCallId: string },
): { content: string; location: string; originalChars: number } | null {
  const offload = offloadRequest(content, options);
  if (offload === null) return null;
  const location = options.artifactStore!.persist(offload.request);
  return { content: renderPersistedReference(location, offload.text), location, originalChars: offload.size };
}

/**
 * Reference `maybe_persist_tool_result`: a text (or all-text-block list) result longer than
 * `maxToolResultChars` is saved through the store and replaced by the persisted-output
 * reference; anything else (no store, limit `<= 0`, short, images, other values) is returned
 * unchanged. Throws what the store throws.
 */
export function maybePersistToolResult(content: unknown, options: NormalizeToolResultOptions & { toolCallId: string }): unknown {
  const persisted = persistDetailed(content, options);
  return persisted === null ? content : persisted.content;
}

/**
 * {@link normalizeToolResult} that also says what it did. Never throws for a failing store: the
 * error is returned in `offloadError` and the result stays inline.
 */
export function normalizeToolResultDetailed(toolCallId: string, toolName: string, result: unknown, options: NormalizeToolResultOptions): NormalizedToolResult {
  const nonEmpty = ensureNonemptyToolResult(toolName, result);
  const info: NormalizedToolResult = { content: nonEmpty };
  if (nonEmpty !== result) info.emptyMarker = true;
  if (TOOL_RESULT_OFFLOAD_EXEMPT_TOOLS.has(toolName)) return info;
  const max = options.maxToolResultChars;
  // An already-offloaded reference is left alone, so normalising twice changes nothing.
  if (typeof nonEmpty === 'string' && nonEmpty.startsWith(PERSISTED_HEADER)) return info;
  let content = nonEmpty;
  try {
    const persisted = persistDetailed(nonEmpty, { ...options, toolCallId });
    if (persisted !== null) {
      content = persisted.content;
      info.offloadedTo = persisted.location;
      info.originalChars = persisted.originalChars;
    }
  } catch (error) {
    info.offloadError = error instanceof Error ? error.message : String(error);
  }
  if (typeof content === 'string' && max > 0 && content.length > max && codePointLength(content) > max) {
    info.originalChars ??= codePointLength(content);
    content = truncateText(content, max);
    info.truncated = true;
  }
  info.content = content;
  return info;
}

/**
 * Shapes one tool result for the model (reference `normalize_tool_result`): an empty result
 * becomes `(<name> completed with no output)`; `read_file` results pass unchanged (reading is
 * how an offloaded result is recovered); a text (or text-block list) result longer than
 * `maxToolResultChars` is saved through `artifactStore` and replaced by a reference with a
 * 1200-character preview; a string still too long is truncated. Writes through the store
 * (synchronously) but never mutates `result`.
 */
export function normalizeToolResult(toolCallId: string, toolName: string, result: unknown, options: NormalizeToolResultOptions): unknown {
  return normalizeToolResultDetailed(toolCallId, toolName, result, options).content;
}
