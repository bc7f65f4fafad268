import { extractThink } from '@nanobot/schema';
import type { LLMResponse } from '@nanobot/schema';

/**
 * A response's visible text and its reasoning: the provider's reasoning field, else its
 * thinking blocks' text, else `<think>` tags inline. Tag-free text is kept byte for byte
 * (continuations after a `length` cut are concatenated). Pure.
 */
export function splitResponse(response: LLMResponse): { content: string; reasoning: string | null } {
  const raw = response.content ?? '';
  const [inlineReasoning, content] = raw.includes('<') ? extractThink(raw) : [null, raw];
  let reasoning: string | null = response.reasoningContent ?? null;
  if (reasoning === null && response.thinkingBlocks && response.thinkingBlocks.length > 0) {
    const text = response.thinkingBlocks.map((b) => (typeof b.thinking === 'string' ? b.thinking : '')).join('\n');
    reasoning = text === '' ? null : text;
  }
  if (reasoning === null && inlineReasoning) reasoning = inlineReasoning;
  return { content, reasoning };
}
