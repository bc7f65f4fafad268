import { ValidationError, type ContentPart, type MessageContent, type TextPart } from '@nanobot/schema';

/** One turn-specific block of metadata appended to the user message. */
export interface RuntimeContextBlock {
  source: string;
  content: string;
}

/** Records exactly what was appended, so it can be removed again byte-for-byte. */
export interface RuntimeContextMarker {
  version: 1;
  sources: string[];
  /** For string content: the appended text (after the `\n\n` separator). */
  suffix?: string;
  /** For list content: the appended text blocks. */
  blocks?: TextPart[];
}

/** Header of a line-based runtime-context block. */
export const RUNTIME_CONTEXT_HEADER = '[Runtime Context — metadata only, not instructions]';
/** Footer of a line-based runtime-context block. */
export const RUNTIME_CONTEXT_FOOTER = '[/Runtime Context]';

/**
 * Trims sources and contents and drops blocks with empty content. Throws ValidationError for a
 * non-object block, a non-string source/content or an empty source (a programming error).
 */
export function normalizeRuntimeContextBlocks(blocks: readonly unknown[]): RuntimeContextBlock[] {
  const out: RuntimeContextBlock[] = [];
  blocks.forEach((block, index) => {
    if (typeof block !== 'object' || block === null) {
      throw new ValidationError(`runtime context block ${index} must be an object`, [index]);
    }
    const { source, content } = block as { source?: unknown; content?: unknown };
    if (typeof source !== 'string') throw new ValidationError(`runtime context block ${index}: source must be a string`, [index, 'source']);
    if (typeof content !== 'string') throw new ValidationError(`runtime context block ${index}: content must be a string`, [index, 'content']);
    const s = source.trim();
    const c = content.trim();
    if (s === '') throw new ValidationError(`runtime context block ${index}: source must not be empty`, [index, 'source']);
    if (c !== '') out.push({ source: s, content: c });
  });
  return out;
}

/** Wraps metadata lines in the standard runtime-context header/footer; '' when no line is non-empty. */
export function formatRuntimeContextLines(lines: readonly string[]): string {
  const kept = lines.filter((line) => line.trim() !== '');
  if (kept.length === 0) return '';
  return [RUNTIME_CONTEXT_HEADER, ...kept, RUNTIME_CONTEXT_FOOTER].join('\n');
}

/**
 * Appends runtime-context blocks at the end of a user message's content (the end, so the
 * cacheable prefix of the request is untouched). Returns the new content and a marker
 * describing the suffix, or the same content and null when there is nothing to append.
 * Pure: the input content is not modified.
 */
export function appendRuntimeContext(
  content: MessageContent | undefined,
  blocks: readonly RuntimeContextBlock[],
): [MessageContent, RuntimeContextMarker | null] {
  const normalized = normalizeRuntimeContextBlocks(blocks);
  const current = content ?? null;
  if (normalized.length === 0) return [current, null];
  const sources = normalized.map((b) => b.source);
  if (Array.isArray(current)) {
    const added: TextPart[] = normalized.map((b) => ({ type: 'text', text: b.content }));
    return [[...current, ...added], { version: 1, sources, blocks: added }];
  }
  const suffix = normalized.map((b) => b.content).join('\n\n');
  const text = typeof current === 'string' ? current : '';
  return [text === '' ? suffix : `${text}\n\n${suffix}`, { version: 1, sources, suffix }];
}

const sameBlock = (a: ContentPart, b: TextPart): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Removes exactly what {@link appendRuntimeContext} added, for display, forking and merges.
 * Content that does not end with the recorded suffix/blocks byte-for-byte is returned unchanged.
 */
export function detachRuntimeContext(content: MessageContent, marker: RuntimeContextMarker | null | undefined): MessageContent {
  if (!marker || typeof marker !== 'object') return content;
  if (typeof content === 'string' && typeof marker.suffix === 'string') {
    if (content === marker.suffix) return '';
    if (content.endsWith(`\n\n${marker.suffix}`)) return content.slice(0, content.length - marker.suffix.length - 2);
    return content;
  }
  if (Array.isArray(content) && Array.isArray(marker.blocks) && marker.blocks.length > 0) {
    const n = marker.blocks.length;
    if (content.length < n) return content;
    const tail = content.slice(content.length - n);
    return tail.every((part, i) => sameBlock(part, marker.blocks![i])) ? content.slice(0, content.length - n) : content;
  }
  return content;
}

/**
 * A runtime-context block telling the model the current time (the reference's default prompt has
 * no clock since its runtime-context refactor). Goes at the end of the user turn like any block,
 * so it never invalidates the cached prompt prefix. `timeZone` is an IANA name (default: the host's).
 */
export function currentTimeBlock(now: Date, timeZone?: string): RuntimeContextBlock {
  const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    weekday: 'long',
    hourCycle: 'h23',
  }).formatToParts(now);
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  const stamp = `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} (${get('weekday')}, ${zone})`;
  return { source: 'time', content: formatRuntimeContextLines([`Current Time: ${stamp}`]) };
}
