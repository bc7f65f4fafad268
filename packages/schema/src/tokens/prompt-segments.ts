// Incremental, exact cl100k counting of the reference's "\n"-joined prompt payload.
//
// cl100k encodes by first splitting the text with a regex and then BPE-merging each piece on
// its own, so the count is the sum over pieces. Some positions are boundaries of that split
// whatever text surrounds them ("sync points"):
//   (a) a non-whitespace character followed by whitespace other than \r \n: words, digit
//       groups and contractions stop at whitespace, and a punctuation run only swallows
//       trailing \r/\n, so the piece holding the character ends exactly there;
//   (b) \r or \n followed by a non-whitespace character: every alternative that can contain a
//       newline ends at the last newline of its run, and none can take the newline as the
//       optional prefix of a word;
//   (c) a letter or digit followed by \r or \n (as (a); only punctuation takes newlines).
// A piece never straddles a sync point and the regex scan restarts there, looking only
// forward, so the count of a text is the sum of the counts of its sync-delimited chunks. Each
// message's text is therefore counted once (its interior between its first and last sync
// point) and only the short stretches around joins ("glue") are re-tokenised; property tests
// check the result against a full encode.
import type { Message } from '../messages/message.js';
import { pythonJsonDumps } from '../python/python-json.js';
import { detachString } from '../util/detach-string.js';
import { messageCacheEntry, type MessageCacheEntry } from './message-cache-entry.js';
import type { PromptSegment } from './prompt-segment.js';
import { countTokens, getEncoder, utf8Length } from '../tokenizer/tokenizer.js';
import { pythonTruthy } from '../python/python-truthy.js';
import { isRecord } from '../util/is-record.js';

function isWhitespace(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  // JS `\s` (what js-tiktoken's pattern uses) outside ASCII.
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

const LETTER_OR_NUMBER = /^[\p{L}\p{N}]$/u;

function isLetterOrNumber(codePoint: number): boolean {
  if (codePoint < 0x80) {
    return (codePoint >= 0x30 && codePoint <= 0x39) || (codePoint >= 0x41 && codePoint <= 0x5a) || (codePoint >= 0x61 && codePoint <= 0x7a);
  }
  return LETTER_OR_NUMBER.test(String.fromCodePoint(codePoint));
}

/** Code point that ends just before UTF-16 index `i`. */
function codePointBefore(text: string, i: number): number {
  const low = text.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return ((high - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
  }
  return low;
}

/** Whether index `i` (0 < i < length) is a sync point of the cl100k pre-split. */
export function isSyncPoint(text: string, i: number): boolean {
  const cur = text.charCodeAt(i);
  const prev = text.charCodeAt(i - 1);
  if (prev === 0x0a || prev === 0x0d) return !isWhitespace(cur);
  if (!isWhitespace(cur) || isWhitespace(prev)) return false;
  if (cur !== 0x0a && cur !== 0x0d) return true;
  return isLetterOrNumber(codePointBefore(text, i));
}

/**
 * Builds a segment for `text`, finding its first and last interior sync points. The middle is
 * counted now when the tokenizer is available (and then dropped), otherwise kept for later.
 */
export function makeSegment(text: string): PromptSegment {
  let first = -1;
  let last = -1;
  for (let i = 1; i < text.length; i++) {
    if (isSyncPoint(text, i)) {
      first = i;
      break;
    }
  }
  if (first !== -1) {
    for (let i = text.length - 1; i >= first; i--) {
      if (isSyncPoint(text, i)) {
        last = i;
        break;
      }
    }
  }
  const synced = first !== -1;
  const segment: PromptSegment = {
    bytes: utf8Length(text),
    startsNonWs: text.length > 0 && !isWhitespace(text.charCodeAt(0)),
    synced,
    head: synced ? detachString(text.slice(0, first)) : '',
    tail: synced ? detachString(text.slice(last)) : text,
    interior: synced ? text.slice(first, last) : null,
    // Declared up front so every segment has one shape (no property backing store).
    interiorCount: synced ? undefined : 0,
    headCount: undefined,
    endCount: undefined,
    endNlCount: undefined,
  };
  if (synced && getEncoder() !== null) interiorCount(segment);
  return segment;
}

/** The reference prompt estimator's parts of one message, or `null` when it has none. */
export function promptParts(message: Record<string, unknown>): string[] {
  const parts: string[] = [];
  const content = message['content'];
  if (typeof content === 'string') {
    parts.push(content);
  } else if (Array.isArray(content)) {
    for (const part of content) {
      if (isRecord(part) && part['type'] === 'text') {
        const text = part['text'];
        if (typeof text === 'string' && text.length > 0) parts.push(text);
      }
    }
  }
  const toolCalls = message['tool_calls'];
  if (pythonTruthy(toolCalls)) parts.push(pythonJsonDumps(toolCalls));
  for (const key of ['reasoning_content', 'name', 'tool_call_id']) {
    const value = message[key];
    if (typeof value === 'string' && value.length > 0) parts.push(value);
  }
  return parts;
}

/** The (cached) prompt segment of one message record, `null` when it contributes no parts. */
export function promptSegmentOf(message: Message | Record<string, unknown>): PromptSegment | null {
  return promptSegmentOfEntry(messageCacheEntry(message as Record<string, unknown>));
}

/** The prompt segment cached on `entry` (built from the entry's field values on first use). */
export function promptSegmentOfEntry(entry: MessageCacheEntry): PromptSegment | null {
  if (entry.segment === undefined) {
    const parts = promptParts({ content: entry.content, tool_calls: entry.toolCalls, reasoning_content: entry.reasoning, name: entry.name, tool_call_id: entry.toolCallId });
    entry.segment = parts.length === 0 ? null : makeSegment(parts.join('\n'));
  }
  return entry.segment;
}

const GLUE_CACHE_LIMIT = 8192;
const glueCache = new Map<string, number | null>();

/** Drops the join-window cache (benchmarks measure cold counts with it). */
export function clearGlueCache(): void {
  glueCache.clear();
}

function glueCount(text: string): number | null {
  const hit = glueCache.get(text);
  if (hit !== undefined || glueCache.has(text)) return hit ?? null;
  const n = countTokens(text);
  glueCache.set(text, n);
  if (glueCache.size > GLUE_CACHE_LIMIT) glueCache.delete(glueCache.keys().next().value as string);
  return n;
}

function headCount(seg: PromptSegment): number | null {
  if (seg.headCount === undefined) seg.headCount = countTokens(seg.head);
  return seg.headCount;
}

function interiorCount(seg: PromptSegment): number | null {
  if (seg.interiorCount !== undefined) return seg.interiorCount;
  // Only called with the tokenizer available (makeSegment and the walk check first), so a
  // `null` is a final refusal (special-token text) and the text is not needed any more.
  const n = countTokens(seg.interior ?? '');
  seg.interiorCount = n;
  seg.interior = null;
  return n;
}

function endCount(seg: PromptSegment, newline: boolean): number | null {
  if (newline) {
    if (seg.endNlCount === undefined) seg.endNlCount = countTokens(`${seg.tail}\n`);
    return seg.endNlCount;
  }
  if (seg.endCount === undefined) seg.endCount = countTokens(seg.tail);
  return seg.endCount;
}

/** Where a {@link PromptWalker} stands after some segments (immutable snapshot). */
export interface WalkState {
  readonly total: number;
  readonly glue: string;
  readonly glueEnd: PromptSegment | null;
  readonly segments: number;
  readonly refused: boolean;
}

/**
 * Counts "\n"-joined segments left to right. `total` holds every chunk up to the last sync
 * point; `glue` is the text after it, not yet counted (`glueEnd` when that text is exactly a
 * segment's end text, whose counts are cached on the segment).
 */
export class PromptWalker {
  private total = 0;
  private glue = '';
  private glueEnd: PromptSegment | null = null;
  private segments = 0;
  private refused = false;

  /** A walker resumed from `state` (or fresh). */
  constructor(state?: WalkState) {
    if (state) {
      this.total = state.total;
      this.glue = state.glue;
      this.glueEnd = state.glueEnd;
      this.segments = state.segments;
      this.refused = state.refused;
    }
  }

  /** Snapshot of the current position. */
  state(): WalkState {
    return { total: this.total, glue: this.glue, glueEnd: this.glueEnd, segments: this.segments, refused: this.refused };
  }

  /** Number of segments pushed so far. */
  get count(): number {
    return this.segments;
  }

  private add(n: number | null): void {
    if (n === null) this.refused = true;
    else this.total += n;
  }

  private flushWithNewline(): void {
    if (this.glueEnd !== null) this.add(endCount(this.glueEnd, true));
    else this.add(glueCount(`${this.glue}\n`));
    this.glue = '';
    this.glueEnd = null;
  }

  /** Appends one segment (joined to the previous one by "\n"). */
  push(seg: PromptSegment): void {
    if (this.refused) return;
    if (this.segments > 0) {
      if (seg.startsNonWs) {
        this.flushWithNewline();
      } else {
        this.glue = `${this.glue}\n`;
        this.glueEnd = null;
      }
    }
    this.segments++;
    if (seg.synced) {
      if (this.glue.length === 0) this.add(headCount(seg));
      else this.add(glueCount(this.glue + seg.head));
      this.add(interiorCount(seg));
      this.glue = seg.tail;
      this.glueEnd = seg;
    } else if (this.glue.length === 0) {
      this.glue = seg.tail;
      this.glueEnd = seg;
    } else {
      this.glue += seg.tail;
      this.glueEnd = null;
    }
  }

  /** Count of everything pushed (does not change the walker), or `null` if refused. */
  result(): number | null {
    if (this.refused) return null;
    let tail: number | null = 0;
    if (this.glueEnd !== null) tail = endCount(this.glueEnd, false);
    else if (this.glue.length > 0) tail = glueCount(this.glue);
    return tail === null ? null : this.total + tail;
  }
}

/**
 * cl100k count of the segments' texts joined by "\n" — exactly `encode(joined).length` — or
 * `null` when some text holds special-token text (the reference then falls back to bytes).
 */
export function promptSegmentCount(segments: readonly PromptSegment[]): number | null {
  const walker = new PromptWalker();
  for (const seg of segments) walker.push(seg);
  return walker.result();
}
