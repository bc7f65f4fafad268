import type { LLMRequest } from '@nanobot/schema';

/**
 * `request` with its own copy of the message list. Callers may hand over a live transcript and
 * append to it while a call is in flight (or between `stream()` and its first `next()`); retries,
 * fallbacks and late-opened streams must still send what was passed, and keep no reference to
 * the caller's array. The messages themselves are shared: they are never changed.
 */
export function withOwnMessages(request: LLMRequest): LLMRequest {
  return { ...request, messages: Array.isArray(request.messages) ? request.messages.slice() : request.messages };
}
