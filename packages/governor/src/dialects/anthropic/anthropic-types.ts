// Structural types for Anthropic Messages API histories, compatible with the
// `@anthropic-ai/sdk` types (`MessageParam`, `TextBlockParam`, `ToolUnion`) without depending on
// the SDK: the SDK's values are assignable to these, and `governAnthropic` returns the caller's
// own element types.

/** Any content block: only its `type` is read; unknown block types pass through untouched. */
export interface AnthropicBlockLike {
  readonly type: string;
}

/** A text block (`TextBlockParam`). */
export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' } | null;
  citations?: readonly unknown[] | null;
}

/** A `tool_use` block of an assistant turn (`ToolUseBlockParam`). */
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' } | null;
}

/** A `tool_result` block of a user turn (`ToolResultBlockParam`). */
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | readonly AnthropicBlockLike[];
  is_error?: boolean;
  cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' } | null;
}

/** A thinking block; its `signature` is sent back byte-exact (`ThinkingBlockParam`). */
export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** A redacted thinking block (`RedactedThinkingBlockParam`). */
export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** One message of `messages` (`MessageParam`): string content or a list of blocks. */
export interface AnthropicMessageLike {
  readonly role: 'user' | 'assistant' | 'system';
  readonly content: string | readonly AnthropicBlockLike[];
}

/** The top-level `system` prompt: a string or text blocks (`string | TextBlockParam[]`). */
export type AnthropicSystemLike = string | readonly AnthropicBlockLike[];

/** A tool definition (`ToolUnion`): custom tools have `input_schema`, server tools a `type`. */
export interface AnthropicToolLike {
  readonly name?: unknown;
  readonly type?: unknown;
  readonly description?: unknown;
  readonly input_schema?: unknown;
}
