import type { LLMResponse, LLMStreamEvent } from '@nanobot/schema';
import { ProviderError } from './provider-error.js';

/**
 * Drains a provider stream and returns its final response, calling `onEvent` for each delta
 * (awaited; may throw, which ends the stream). Throws if the stream ends without `done`.
 */
export async function collectStream(stream: AsyncIterable<LLMStreamEvent>, onEvent?: (event: LLMStreamEvent) => void | Promise<void>): Promise<LLMResponse> {
  for await (const event of stream) {
    if (event.type === 'done') return event.response;
    await onEvent?.(event);
  }
  throw new ProviderError('The stream ended without a final response.', { kind: 'stream_interrupted', retryable: true });
}
