import { codePointLength, truncateText, type RereadableOutput } from '@nanobot/schema';
import type { ArtifactRequest, ArtifactStore } from '../../offload/artifact-store.js';
import { TOOL_RESULT_PREVIEW_CHARS } from '../../constants.js';
import { ensureNonemptyToolResult } from './ensure-nonempty-tool-result.js';
import { continuationHint, SHORTENED_PREFIX, shortenedNote, type ReadWindow } from './honest-notes.js';
import { isOffloadExempt, REFERENCE_RULES, rereadableOf, type ToolResultRules } from './tool-rules.js';

/** Options of {@link normalizeToolResult}. */
export interface NormalizeToolResultOptions {
  /** Results longer than this (code points) are offloaded or truncated; `<= 0` disables both. */
  maxToolResultChars: number;
  /** Where oversized results go; without one nothing is offloaded (reference: no workspace). */
  artifactStore?: ArtifactStore | null;
  /** Session bucket for offloaded results. */
  sessionKey?: string | null;
  /**
   * Which tools get special treatment and which wording is used (default: the reference's, by
   * name). In the default mode of govern: declared traits, and notes that never read as errors.
   */
  rules?: ToolResultRules;
  /**
   * The arguments of the call a result answers (parsed JSON or the raw string), for a rereadable
   * tool's continuation hint; null when unknown. Called synchronously; must not throw.
   */
  argumentsOf?: (toolCallId: string) => unknown;
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
  /** A rereadable result cut with a continuation hint (default mode): how many units were shown. */
  continued?: { shownUnits: number; nextOffset: number };
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

/**
 * The text that replaces an offloaded result in the model copy: the reference's (`style:
 * 'reference'`, the default), or the default mode's note saying what was shortened and where the
 * rest is, followed by the preview.
 */
export function renderPersistedReference(location: string, text: string, style: 'reference' | 'plain' = 'reference'): string {
  const size = codePointLength(text);
  if (style === 'plain') {
    const shown = Math.min(size, TOOL_RESULT_PREVIEW_CHARS);
    return `${shortenedNote(shown, size, location)}\n\n${sliceCodePoints(text, TOOL_RESULT_PREVIEW_CHARS)}`;
  }
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
  const style = (options.rules ?? REFERENCE_RULES).reference ? 'reference' : 'plain';
  return { content: renderPersistedReference(location, offload.text, style), location, originalChars: offload.size };
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
  const rules = options.rules ?? REFERENCE_RULES;
  const nonEmpty = ensureNonemptyToolResult(toolName, result);
  const info: NormalizedToolResult = { content: nonEmpty };
  if (nonEmpty !== result) info.emptyMarker = true;
  if (isOffloadExempt(rules, toolName)) return info;
  const max = options.maxToolResultChars;
  // An already-offloaded reference is left alone, so normalising twice changes nothing.
  if (typeof nonEmpty === 'string' && (nonEmpty.startsWith(PERSISTED_HEADER) || (!rules.reference && nonEmpty.startsWith(SHORTENED_PREFIX)))) return info;
  const paging = rereadableOf(rules, toolName);
  if (paging !== null) {
    // Re-readable content: cut with where to read on, never offloaded (the model would have to
    // read the artifact back with this same tool, which pages anyway).
    if (typeof nonEmpty === 'string' && max > 0 && nonEmpty.length > max && codePointLength(nonEmpty) > max) {
      const cut = cutWithContinuation(nonEmpty, max, toolName, paging, readWindow(paging, options.argumentsOf?.(toolCallId)));
      info.content = cut.content;
      info.originalChars = codePointLength(nonEmpty);
      info.truncated = true;
      info.continued = { shownUnits: cut.shownUnits, nextOffset: cut.nextOffset };
    }
    return info;
  }
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
  // The default mode's offload note may take the copy a little past the limit: cutting it would
  // cut the note that says where the rest is.
  const plainOffloaded = !rules.reference && info.offloadedTo !== undefined;
  if (!plainOffloaded && typeof content === 'string' && max > 0 && content.length > max && codePointLength(content) > max) {
    info.originalChars ??= codePointLength(content);
    content = rules.reference ? truncateText(content, max) : `${sliceCodePoints(content, max)}\n\n${shortenedNote(max, info.originalChars, null)}`;
    info.truncated = true;
  }
  info.content = content;
  return info;
}

/** The window a rereadable call asked for: its offset (default the first) and limit, from its arguments. */
function readWindow(paging: RereadableOutput, args: unknown): ReadWindow {
  let parsed = args;
  if (typeof parsed === 'string') {
    try {
      parsed = JSON.parse(parsed);
    } catch {
      parsed = null;
    }
  }
  const record = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? Math.floor(v) : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null);
  const offset = num(record[paging.offsetParam]);
  const limit = num(record[paging.limitParam]);
  return { offset: offset !== null && offset >= paging.firstOffset ? offset : paging.firstOffset, limit: limit !== null && limit > 0 ? limit : null };
}

// Room left for the continuation hint inside the limit.
const HINT_CHARS = 200;

/** `text` cut at a unit boundary to about `max` characters, with the continuation hint. */
function cutWithContinuation(text: string, max: number, name: string, paging: RereadableOutput, window: ReadWindow): { content: string; shownUnits: number; nextOffset: number } {
  const total = codePointLength(text);
  const room = Math.max(1, max - HINT_CHARS);
  let kept: string;
  let units: number;
  if (paging.unit === 'lines') {
    const lines = text.split('\n');
    let used = 0;
    units = 0;
    while (units < lines.length && used + lines[units].length + (units > 0 ? 1 : 0) <= room) {
      used += lines[units].length + (units > 0 ? 1 : 0);
      units++;
    }
    // A first line longer than the room is shown cut, so reading still moves on.
    if (units === 0) {
      kept = sliceCodePoints(lines[0], room);
      units = 1;
    } else kept = lines.slice(0, units).join('\n');
  } else {
    kept = sliceCodePoints(text, room);
    units = codePointLength(kept);
  }
  const hint = continuationHint(name, paging, window, units, codePointLength(kept), total);
  return { content: `${kept}\n\n${hint}`, shownUnits: units, nextOffset: window.offset + units };
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
