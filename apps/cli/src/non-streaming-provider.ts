import type { LLMProvider, LLMRequest, LLMResponse, LLMStreamEvent } from '@nanobot/schema';

/**
 * Wraps a provider so that `stream` makes one whole (`chat`) request and yields its text and the
 * final `done`: for servers whose streaming is broken, behind `--no-stream`. The wrapped provider
 * is not modified.
 */
export function nonStreamingProvider(inner: LLMProvider): LLMProvider {
  return {
    name: inner.name,
    defaultModel: inner.defaultModel,
    ...(inner.tokenCounter ? { tokenCounter: inner.tokenCounter } : {}),
    // The exact count and the published limits do not depend on streaming.
    ...(inner.countTokens ? { countTokens: inner.countTokens.bind(inner) } : {}),
    ...(inner.modelLimits ? { modelLimits: inner.modelLimits.bind(inner) } : {}),
    chat: (request: LLMRequest): Promise<LLMResponse> => inner.chat(request),
    async *stream(request: LLMRequest): AsyncGenerator<LLMStreamEvent> {
      const response = await inner.chat(request);
      if (response.reasoningContent) yield { type: 'reasoning_delta', delta: response.reasoningContent };
      if (response.content) yield { type: 'text_delta', delta: response.content };
      yield { type: 'done', response };
    },
  };
}
