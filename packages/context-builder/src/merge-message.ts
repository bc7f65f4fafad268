import type { ContentPart, Message, MessageContent } from '@nanobot/schema';

function toBlocks(content: MessageContent | undefined): ContentPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((item) =>
    typeof item === 'object' && item !== null && !Array.isArray(item) ? item : { type: 'text', text: String(item) },
  );
}

/** Merges two contents the way consecutive same-role turns are joined: strings with a blank line, otherwise as block lists. */
export function mergeContent(previous: MessageContent | undefined, next: MessageContent | undefined): MessageContent {
  if (typeof previous === 'string' && typeof next === 'string') {
    return [previous, next].filter((s) => s !== '').join('\n\n');
  }
  return [...toBlocks(previous), ...toBlocks(next)];
}

/**
 * A copy of `previous` with `current` merged in (content merged; for user turns the `_meta`
 * dicts are merged with `current` winning). Neither input is modified.
 */
export function mergeSameRoleMessage(previous: Message, current: Message): Message {
  const merged: Message = { ...previous, content: mergeContent(previous.content, current.content) };
  if (current.role === 'user') {
    const meta = {
      ...((previous._meta as Record<string, unknown> | undefined) ?? {}),
      ...((current._meta as Record<string, unknown> | undefined) ?? {}),
    };
    if (Object.keys(meta).length > 0) merged._meta = meta;
  }
  return merged;
}
