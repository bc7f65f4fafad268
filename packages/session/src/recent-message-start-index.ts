import type { Message } from '@nanobot/schema';

/**
 * Index where a replay of the last `maxMessages` messages starts (reference
 * `recent_message_start_index`). `maxMessages <= 0` means "nothing": the result is
 * `messages.length`. With `extendToUser`, a window that holds no user message is extended
 * back to the user message that began that stretch, and one further back when that user
 * message directly follows a `_channel_delivery` row (the proactive message it answers).
 */
export function recentMessageStartIndex(messages: readonly Message[], maxMessages: number, extendToUser = false): number {
  const total = messages.length;
  if (maxMessages <= 0) return total;
  let start = Math.max(0, total - maxMessages);
  if (!extendToUser) return start;
  for (let i = start; i < total; i += 1) if (messages[i]?.role === 'user') return start;
  for (let i = start - 1; i >= 0; i -= 1) {
    if (messages[i]?.role === 'user') {
      start = i;
      if (i > 0 && messages[i - 1]?._channel_delivery) start = i - 1;
      return start;
    }
  }
  return start;
}
