import type { Message, MessageContent } from '@nanobot/schema';

/**
 * The text that stands in for an image once it is no longer sent inline:
 * `[image: <path>]`, or `[image]` when the path is unknown or empty.
 */
export function imagePlaceholderText(path: string | null | undefined): string {
  return typeof path === 'string' && path !== '' ? `[image: ${path}]` : '[image]';
}

/**
 * A user message's string content with one `[image: <path>]` line per entry of its `media`
 * list (after the text, `\n`-joined), so replayed turns still tell the model which images
 * were attached. Non-string or empty media entries are ignored; list content and non-user
 * roles are returned unchanged (same value). Pure: the message is not modified.
 */
export function contentWithMediaBreadcrumbs(message: Pick<Message, 'role' | 'content'> & { media?: unknown }): MessageContent | undefined {
  const content = message.content;
  if (message.role !== 'user' || typeof content !== 'string') return content;
  const media = Array.isArray(message.media) ? message.media : [];
  const crumbs = media.filter((p): p is string => typeof p === 'string' && p !== '').map((p) => imagePlaceholderText(p));
  if (crumbs.length === 0) return content;
  return [content, ...crumbs].filter((part) => part !== '').join('\n');
}
