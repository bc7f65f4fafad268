import type { CacheBreakpoints, Message } from '@nanobot/schema';
import { mayCarryCacheControl } from './anthropic-cache-breakpoints.js';
import { selectCacheBreakpoints } from './select-cache-breakpoints.js';

/** Where one breakpoint goes: a tool definition, or a content part of a converted message (string content: part 0). */
export type OpenAIBreakpointSite = { kind: 'tool'; index: number } | { kind: 'message'; message: number; part: number };

// Chat-completions part types as a gateway hands them to the Messages API.
const ANTHROPIC_TYPE: Readonly<Record<string, string>> = { image_url: 'image', file: 'document' };

/** The last part of `message` that may carry `cache_control` (the Anthropic rules), or -1. */
function lastMarkablePart(message: Message): number {
  const content: unknown = message.content;
  if (typeof content === 'string') return content.trim() !== '' ? 0 : -1;
  if (!Array.isArray(content)) return -1;
  for (let j = content.length - 1; j >= 0; j--) {
    const part: unknown = content[j];
    if (typeof part !== 'object' || part === null) continue;
    const block = part as Record<string, unknown>;
    const type = typeof block.type === 'string' && Object.hasOwn(ANTHROPIC_TYPE, block.type) ? ANTHROPIC_TYPE[block.type] : block.type;
    if (mayCarryCacheControl({ ...block, type })) return j;
  }
  return -1;
}

/**
 * The sites of the planned breakpoints on a chat-completions message list, at most four, chosen
 * as for Anthropic (`selectCacheBreakpoints`): a message boundary `i` goes on the last converted
 * message of the longest prefix holding only content of messages `<= i` (`sources`: for each
 * converted message, the newest original it holds), moved back to the nearest part that may
 * carry `cache_control` (an assistant with only tool calls has none); `tools` on the last tool.
 * A message merged with the one after it therefore puts its boundary before the merged turn.
 */
export function planOpenAIBreakpoints(plan: CacheBreakpoints, messageCount: number, converted: readonly Message[], sources: readonly number[], toolCount: number): OpenAIBreakpointSite[] {
  return selectCacheBreakpoints<OpenAIBreakpointSite>(plan, {
    messageCount,
    tools: () => (toolCount > 0 ? { kind: 'tool', index: toolCount - 1 } : null),
    message: (i) => {
      let p = -1;
      while (p + 1 < converted.length && sources[p + 1] <= i) p++;
      for (; p >= 0; p--) {
        const part = lastMarkablePart(converted[p]);
        if (part >= 0) return { kind: 'message', message: p, part };
      }
      return null;
    },
    key: (site) => (site.kind === 'tool' ? `tool:${site.index}` : `message:${site.message}:${site.part}`),
  });
}
