import type { SseFrame } from './wire-server.js';

/** A chat-completions chunk frame with one choice delta. */
export function chunk(delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): SseFrame {
  return { data: { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }], ...extra } };
}

/** The final usage-only chunk (`choices: []`) sent with `stream_options.include_usage`. */
export function usageChunk(prompt: number, completion: number, cached?: number): SseFrame {
  return {
    data: {
      id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'test-model', choices: [],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...(cached !== undefined ? { prompt_tokens_details: { cached_tokens: cached } } : {}) },
    },
  };
}

/** A non-streaming chat completion body. */
export function completion(message: Record<string, unknown>, finish = 'stop', usage: Record<string, unknown> = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }): Record<string, unknown> {
  return { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'test-model', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }], usage };
}

/** Text frames: each string one content delta, then a stop chunk and usage. */
export function textStream(parts: string[]): SseFrame[] {
  return [chunk({ role: 'assistant', content: '' }), ...parts.map((p) => chunk({ content: p })), chunk({}, 'stop'), usageChunk(3, parts.length)];
}
