// The Anthropic Messages API's rules for a governed copy's `messages`, checked by the one rule
// set in @nanobot-internal/provider-wire (each rule with the API's wording and its source).
// Judged strictly, as a request the governor hands over: a user turn last (no prefill); thinking
// signatures not verified (the tests' histories carry made-up ones) and the caller's own
// cache_control markers left to the provider (prompt-caching rules off).
import { checkAnthropicMessages } from '@nanobot-internal/provider-wire';
import type { AnthropicMessageLike } from '../dialects/anthropic/anthropic-types.js';

/** Every rule `messages` breaks, as `path: message` (empty list: the API accepts it). */
export function anthropicRequestViolations(messages: readonly AnthropicMessageLike[]): string[] {
  return checkAnthropicMessages({ messages: messages as unknown as Record<string, unknown>[] }, { wholeBody: false, strictLastTurn: true, verifySignatures: false, caching: false }).map((v) => `${v.path}: ${v.message}`);
}
