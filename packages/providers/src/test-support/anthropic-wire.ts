import type { SseFrame } from './wire-server.js';

/** `message_start` with input usage (cache fields separate, as the API sends them). */
export function messageStart(usage: Record<string, number> = { input_tokens: 10, output_tokens: 1 }): SseFrame {
  return { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage } } };
}

export function blockStart(index: number, block: Record<string, unknown>): SseFrame {
  return { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: block } };
}

export function blockDelta(index: number, delta: Record<string, unknown>): SseFrame {
  return { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } };
}

export function blockStop(index: number): SseFrame {
  return { event: 'content_block_stop', data: { type: 'content_block_stop', index } };
}

export function messageDelta(stopReason: string, usage: Record<string, number> = { output_tokens: 7 }): SseFrame {
  return { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage } };
}

export function messageStop(): SseFrame {
  return { event: 'message_stop', data: { type: 'message_stop' } };
}

/** A whole text answer streamed in `parts`. */
export function anthropicTextStream(parts: string[]): SseFrame[] {
  return [
    messageStart(),
    blockStart(0, { type: 'text', text: '' }),
    ...parts.map((p) => blockDelta(0, { type: 'text_delta', text: p })),
    blockStop(0),
    messageDelta('end_turn', { output_tokens: parts.length }),
    messageStop(),
  ];
}

/** A non-streaming Messages API body. */
export function message(content: Record<string, unknown>[], stopReason = 'end_turn', usage: Record<string, number> = { input_tokens: 10, output_tokens: 5 }): Record<string, unknown> {
  return { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content, stop_reason: stopReason, stop_sequence: null, usage };
}
