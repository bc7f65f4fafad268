import type { MessageContent } from '@nanobot/schema';

/** True when a tool result carries no visible content (the reference's "empty" rule). */
export function isEmptyContent(content: MessageContent | undefined): boolean {
  if (content === null || content === undefined) return true;
  if (typeof content === 'string') return content.trim() === '';
  if (content.length === 0) return true;
  return content.every((part) => part.type === 'text' && typeof part.text === 'string' && (part.text as string).trim() === '');
}

/** Flattens content to one line of text (for event details and error payloads). */
export function contentText(content: MessageContent | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : `[${part.type}]`))
    .join('\n');
}
