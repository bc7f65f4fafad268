import type { Message } from '@nanobot/schema';

/** Text that replaces an image the API refused (model-visible; the reference's exact words). */
export const IMAGE_NOT_DELIVERED_TEXT = '[Image not delivered to model — do not describe or reference it]';

const IMAGE_TYPES = new Set(['image_url', 'input_image']);

/** Whether any object inside `value` (messages, blocks, provider state) is an image block. */
export function containsImageContent(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(containsImageContent);
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (typeof record.type === 'string' && IMAGE_TYPES.has(record.type)) return true;
  return Object.values(record).some(containsImageContent);
}

/**
 * A copy of `messages` with every `image_url` block replaced by the placeholder text block, or
 * `null` when there was none. Used for the one retry after an API rejected a request with images.
 * The input is never changed (the reference also edits the caller's history in place; we don't).
 */
export function stripImageContent(messages: readonly Message[]): Message[] | null {
  let found = false;
  const out = messages.map((message) => {
    const content: unknown = message.content;
    if (!Array.isArray(content)) return message;
    let changed = false;
    const blocks = content.map((block: unknown) => {
      if (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'image_url') {
        changed = true;
        return { type: 'text', text: IMAGE_NOT_DELIVERED_TEXT };
      }
      return block;
    });
    if (!changed) return message;
    found = true;
    return { ...message, content: blocks } as Message;
  });
  return found ? out : null;
}
