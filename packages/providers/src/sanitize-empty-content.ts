import { sanitizeSurrogatesDeep, type Message } from '@nanobot/schema';

const TEXT_BLOCK_TYPES = new Set(['text', 'input_text', 'output_text']);

/** The placeholder the reference sends instead of an empty content (APIs reject `""`). */
export const EMPTY_CONTENT_PLACEHOLDER = '(empty)';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutMeta(value: Record<string, unknown>): Record<string, unknown> {
  if (!('_meta' in value)) return value;
  const { _meta: _dropped, ...rest } = value;
  return rest;
}

/**
 * Makes every message's content acceptable to the APIs, on a copy: internal `_meta` keys go
 * (on messages and content blocks), `""` becomes `"(empty)"` (or `null` for an assistant that
 * carries tool calls), empty text blocks are dropped, a bare block object is wrapped in a list,
 * and lone surrogates become U+FFFD. Unchanged messages are returned by identity.
 */
export function sanitizeEmptyContent(messages: readonly Message[]): Message[] {
  return messages.map((message) => {
    if (!isRecord(message)) return message;
    const hasToolCalls = message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
    const emptyValue = hasToolCalls ? null : EMPTY_CONTENT_PLACEHOLDER;
    let out: Message = withoutMeta(message) as Message;
    const content: unknown = message.content;
    if (content === '') {
      out = { ...out, content: emptyValue };
    } else if (Array.isArray(content)) {
      let changed = false;
      const blocks: unknown[] = [];
      for (const block of content) {
        if (isRecord(block)) {
          if (typeof block.type === 'string' && TEXT_BLOCK_TYPES.has(block.type) && !block.text) {
            changed = true;
            continue;
          }
          const clean = withoutMeta(block);
          if (clean !== block) changed = true;
          blocks.push(clean);
        } else {
          blocks.push(block);
        }
      }
      if (changed) out = { ...out, content: blocks.length === 0 ? emptyValue : (blocks as Message['content']) };
    } else if (isRecord(content)) {
      out = { ...out, content: [content] as Message['content'] };
    }
    return sanitizeSurrogatesDeep(out);
  });
}
