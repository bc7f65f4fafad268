import type { Message } from '../messages/message.js';
import type { ToolDefinition } from '../json-schema/tool-definition.js';

/** Where a token count came from: a provider's exact counter, tiktoken, or the byte heuristic. */
export type TokenSource = 'provider_counter' | 'tiktoken' | 'heuristic' | 'none' | (string & {});

/**
 * Counts prompt tokens exactly for one provider (e.g. a provider's count-tokens endpoint).
 * May throw: callers fall back to the estimate. Must not mutate its arguments. Not awaited:
 * counting sits on the governor's hot path, so it is synchronous.
 */
export interface TokenCounter {
  countPromptTokens(messages: readonly Message[], tools?: readonly ToolDefinition[] | null): [number, TokenSource?] | number | null | undefined;
}
