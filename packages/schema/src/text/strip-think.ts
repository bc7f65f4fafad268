import { pythonStrip } from '../python/python-strip.js';

// Inline reasoning tags some models put in their text (`<think>…</think>`, `<thinking>`,
// `<thought>`), and template leaks around them. Edge-only rules (orphan closers, channel
// markers) only act at the start/end of the text so that prose *about* these tags survives.

const TAG = '(?:think|thinking|thought)';
const TAG_NAMES = ['think', 'thinking', 'thought'];
// Every prefix of a tag name, longest first, for chunks that end mid-tag (`<thi`).
const TAG_PREFIXES = [...new Set(TAG_NAMES.flatMap((t) => Array.from({ length: t.length }, (_, i) => t.slice(0, i + 1))))]
  .sort((a, b) => b.length - a.length)
  .join('|');
const PARTIAL_TAG = `</?(?:${TAG_PREFIXES})>?`;
const PARTIAL_CONTROL = `${PARTIAL_TAG}|<\\|?(?:c|ch|cha|chan|chann|channe|channel)(?:\\|?>?)?`;
// Python's `$` (no MULTILINE) also matches just before a final newline.
const END = '(?=\\n?$)';

const BLOCK = new RegExp(`<(${TAG})>([\\s\\S]*?)</\\1>`, 'g');
const UNCLOSED_AT_START = new RegExp(`^\\s*<${TAG}>[\\s\\S]*$`);
const SELF_CLOSING_START = /^\s*<thinking\/>\s*/;
const SELF_CLOSING_END = new RegExp(`\\s*<thinking/>\\s*${END}`);
const MALFORMED_OPEN = new RegExp(`<${TAG}(?![A-Za-z0-9_\\-:>/])`, 'g');
const ORPHAN_CLOSE_START = new RegExp(`^\\s*</${TAG}>\\s*`);
const ORPHAN_CLOSE_END = new RegExp(`\\s*</${TAG}>\\s*${END}`);
const CHANNEL_START = /^\s*<\|?channel\|?>\s*/;
const PARTIAL_AT_END = new RegExp(`(?:${PARTIAL_CONTROL})${END}`);
const LONE_PIPE_OPEN = new RegExp(`^\\s*<\\|?${END}`);

const R_SELF_START = new RegExp(`^\\s*<${TAG}/>\\s*`);
const R_SELF_END = new RegExp(`\\s*<${TAG}/>\\s*${END}`);
const R_OPEN_START = new RegExp(`^\\s*<${TAG}>\\s*`);
const R_CLOSE_END = new RegExp(`\\s*</${TAG}>\\s*${END}`);
const R_PARTIAL_END = new RegExp(`\\s*(?:${PARTIAL_TAG})${END}`);

const strip = pythonStrip;

/**
 * Reference `strip_think`: removes closed think blocks, an unclosed block that starts the
 * text (a stream cut mid-thought), `<thinking/>` markers at the edges, malformed openers such
 * as `<think广场` (the tag name glued to content), orphan closers and `<|channel|>` markers at
 * the edges, and a partial control tag ending the text (`<thi`, `<|chan`); then trims. Pure.
 */
export function stripThink(text: string): string {
  let out = text.replace(BLOCK, '');
  out = out.replace(UNCLOSED_AT_START, '');
  out = out.replace(SELF_CLOSING_START, '');
  out = out.replace(SELF_CLOSING_END, '');
  out = out.replace(MALFORMED_OPEN, '');
  out = out.replace(ORPHAN_CLOSE_START, '');
  out = out.replace(ORPHAN_CLOSE_END, '');
  out = out.replace(CHANNEL_START, '');
  out = out.replace(PARTIAL_AT_END, '');
  out = out.replace(LONE_PIPE_OPEN, '');
  return strip(out);
}

/**
 * Reference `extract_think`: `[thinking, cleaned]` where `thinking` joins the trimmed bodies of
 * closed blocks with blank lines (`null` when there are none) and `cleaned` is
 * {@link stripThink}'s result. Unclosed blocks are stripped but not surfaced.
 */
export function extractThink(text: string): [string | null, string] {
  const parts: string[] = [];
  for (const match of text.matchAll(BLOCK)) parts.push(strip(match[2]!));
  return [parts.length > 0 ? parts.join('\n\n') : null, stripThink(text)];
}

/**
 * Reference `strip_reasoning_tags`: for text already known to be reasoning, removes wrapper
 * tags at its edges (`<think>` at the start, `</think>` at the end, self-closing markers, a
 * trailing partial tag) and trims; a non-string gives `""`.
 */
export function stripReasoningTags(text: unknown): string {
  if (typeof text !== 'string') return '';
  let out = text.replace(R_SELF_START, '');
  out = out.replace(R_SELF_END, '');
  out = out.replace(R_OPEN_START, '');
  out = out.replace(R_CLOSE_END, '');
  out = out.replace(R_PARTIAL_END, '');
  return strip(out);
}
