import type { SseFrame } from './wire-server.js';

type Json = Record<string, unknown>;

let seq = 0;

/** One Responses SSE frame: the event name on its own line, as OpenAI sends it. */
export function ev(type: string, body: Json = {}): SseFrame {
  return { event: type, data: { type, sequence_number: seq++, ...body } };
}

/** A whole Responses object (`status: completed` unless given). */
export function responseBody(output: Json[], extra: Json = {}): Json {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status: 'completed',
    model: 'gpt-test',
    output,
    usage: { input_tokens: 120, input_tokens_details: { cached_tokens: 100 }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 12 }, total_tokens: 150 },
    ...extra,
  };
}

/** An assistant output message item with one `output_text` part. */
export function textItem(text: string, id = 'msg_1'): Json {
  return { type: 'message', id, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
}

/** A `function_call` output item. */
export function callItem(callId: string, name: string, args: string, id = `fc_${callId}`): Json {
  return { type: 'function_call', id, call_id: callId, name, arguments: args, status: 'completed' };
}

/** A `reasoning` output item with a summary and encrypted content. */
export function reasoningItem(id: string, summary: string, encrypted: string): Json {
  return { type: 'reasoning', id, summary: [{ type: 'summary_text', text: summary }], encrypted_content: encrypted };
}

/**
 * A full stream for `output`: created, then per item its added/deltas/done events (text split in
 * `textChunks`, arguments split in `argChunks`), then `response.completed` with the whole body.
 */
export function responseStream(output: Json[], options: { textChunks?: (text: string) => string[]; argChunks?: (args: string) => string[]; final?: Json } = {}): SseFrame[] {
  const frames: SseFrame[] = [ev('response.created', { response: { ...responseBody([]), status: 'in_progress', usage: null } })];
  output.forEach((item, index) => {
    if (item.type === 'function_call') {
      frames.push(ev('response.output_item.added', { output_index: index, item: { ...item, arguments: '' , status: 'in_progress' } }));
      for (const delta of (options.argChunks ?? ((a) => [a]))(item.arguments as string)) {
        frames.push(ev('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta }));
      }
      frames.push(ev('response.function_call_arguments.done', { item_id: item.id, output_index: index, arguments: item.arguments }));
    } else if (item.type === 'message') {
      const text = ((item.content as Json[])[0] as { text: string }).text;
      frames.push(ev('response.output_item.added', { output_index: index, item: { ...item, content: [], status: 'in_progress' } }));
      frames.push(ev('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
      for (const delta of (options.textChunks ?? ((t) => [t]))(text)) {
        frames.push(ev('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta, logprobs: [] }));
      }
      frames.push(ev('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text, logprobs: [] }));
    } else if (item.type === 'reasoning') {
      frames.push(ev('response.output_item.added', { output_index: index, item: { ...item, summary: [] } }));
      const summary = ((item.summary as Json[])[0] as { text: string }).text;
      frames.push(ev('response.reasoning_summary_text.delta', { item_id: item.id, output_index: index, summary_index: 0, delta: summary }));
    }
    frames.push(ev('response.output_item.done', { output_index: index, item }));
  });
  frames.push(ev('response.completed', { response: options.final ?? responseBody(output) }));
  return frames;
}
