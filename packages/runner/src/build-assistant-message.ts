import type { Message, ThinkingBlock, ToolCall } from '@nanobot/schema';
import { stripReasoningTags } from '@nanobot/schema';

/** Fields of an assistant message as the runner assembles it. */
export interface AssistantMessageParts {
  content?: string | null;
  toolCalls?: readonly ToolCall[] | null;
  reasoningContent?: string | null;
  thinkingBlocks?: readonly ThinkingBlock[] | null;
  /** The provider's fields to store as they are (`LLMResponse.messageFields`, e.g. OpenRouter's `reasoning_details`). */
  providerFields?: Readonly<Record<string, unknown>> | null;
}

const OWN_KEYS = new Set(['role', 'content', 'tool_calls', 'tool_call_id', 'name', 'reasoning_content', 'thinking_blocks']);

/**
 * Builds the persisted assistant message: `content` is never null (empty string instead),
 * `tool_calls` only when non-empty, `reasoning_content` whenever reasoning or thinking blocks
 * exist (`""` if only blocks, tags stripped), `thinking_blocks` when non-empty, and the
 * provider's own fields unchanged (never one of the message's own keys). Pure.
 */
export function buildAssistantMessage(parts: AssistantMessageParts): Message {
  const message: Message = { role: 'assistant', content: parts.content ?? '' };
  if (parts.toolCalls && parts.toolCalls.length > 0) message.tool_calls = parts.toolCalls.map((call) => ({ ...call, function: { ...call.function } }));
  const blocks = parts.thinkingBlocks && parts.thinkingBlocks.length > 0 ? parts.thinkingBlocks : null;
  if (parts.reasoningContent != null || blocks) {
    message.reasoning_content = parts.reasoningContent != null ? stripReasoningTags(parts.reasoningContent) : '';
  }
  if (blocks) message.thinking_blocks = blocks.map((block) => ({ ...block }));
  for (const [key, value] of Object.entries(parts.providerFields ?? {})) if (!OWN_KEYS.has(key) && value !== undefined) message[key] = value;
  return message;
}
