// STUB — being implemented by the schema owner. Signatures are the contract.
import type { Message } from './message.js';
import type { ToolDefinition } from './tool-definition.js';
import type { TokenCounter, TokenSource } from './token-counter.js';

/** Estimated tokens of one message (reference `estimate_message_tokens`). */
export function estimateMessageTokens(_message: Message): number {
  throw new Error('not implemented');
}

/** Estimated tokens of a whole prompt (reference `estimate_prompt_tokens`). */
export function estimatePromptTokens(_messages: readonly Message[], _tools?: readonly ToolDefinition[] | null): number {
  throw new Error('not implemented');
}

/** Provider counter first, then the estimate (reference `estimate_prompt_tokens_chain`). */
export function estimatePromptTokensChain(
  _counter: TokenCounter | null | undefined,
  _messages: readonly Message[],
  _tools?: readonly ToolDefinition[] | null,
): [number, TokenSource] {
  throw new Error('not implemented');
}
