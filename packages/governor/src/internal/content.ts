// What counts as "no content" for the providers. OpenAI rejects a missing (null) content except
// on an assistant turn with tool calls, and empty content lists; Anthropic rejects any text
// block without a non-whitespace character (`text content blocks must contain non-whitespace
// text`) and empty content lists. Whitespace is judged both by Python and JS rules, whichever
// is broader, since the APIs do not say which set they use.
import { pythonIsBlank } from '@nanobot/schema';

/** A text with no non-whitespace character. */
export function isBlankText(text: string): boolean {
  return pythonIsBlank(text) || text.trim() === '';
}

/** A `text`-typed part of a content list. */
export function isTextPart(part: unknown): part is { type: 'text'; text?: unknown } {
  return part !== null && typeof part === 'object' && !Array.isArray(part) && (part as { type?: unknown }).type === 'text';
}

/** A text part whose text is missing, not a string, or blank (Anthropic rejects it). */
export function isBlankTextPart(part: unknown): boolean {
  if (!isTextPart(part)) return false;
  return typeof part.text !== 'string' || isBlankText(part.text);
}

/**
 * Whether content carries nothing a model can read: null/undefined, a blank string, an empty
 * list, or a list of blank text parts only.
 */
export function isBlankContent(content: unknown): boolean {
  if (content === null || content === undefined) return true;
  if (typeof content === 'string') return isBlankText(content);
  if (Array.isArray(content)) return content.every(isBlankTextPart);
  return false;
}
