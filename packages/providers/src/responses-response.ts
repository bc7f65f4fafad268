import type { LLMResponse, LLMStreamEvent, ThinkingBlock, Usage } from '@nanobot/schema';
import { finishToolCalls } from './finish-tool-calls.js';
import { ProviderError } from './provider-error.js';

type Json = Record<string, any>;

/** Usage in our shape from a Responses `usage` object (cached and reasoning tokens from the details). */
export function responsesUsage(usage: Json | null | undefined): Usage {
  if (!usage) return { inputTokens: 0, outputTokens: 0 };
  const out: Usage = { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 };
  const cached = usage.input_tokens_details?.cached_tokens;
  if (typeof cached === 'number') out.cachedTokens = cached;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') out.reasoningTokens = reasoning;
  return out;
}

/** An error reported inside a Responses body or stream, thrown so `toProviderError` classifies it. */
function apiError(error: Json | null | undefined, fallback: string): Error {
  const message = typeof error?.message === 'string' ? error.message : fallback;
  return Object.assign(new Error(message), { error: { type: error?.type, code: error?.code, message } });
}

function reasoningBlock(item: Json): ThinkingBlock {
  const block: ThinkingBlock = { type: 'reasoning', id: item.id, summary: Array.isArray(item.summary) ? item.summary.map((s: Json) => ({ type: 'summary_text', text: String(s?.text ?? '') })) : [] };
  if (typeof item.encrypted_content === 'string') block.encrypted_content = item.encrypted_content;
  return block;
}

function finishReason(response: Json, hasCalls: boolean): string {
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason;
    return reason === 'max_output_tokens' ? 'length' : reason === 'content_filter' ? 'content_filter' : 'length';
  }
  return hasCalls ? 'tool_calls' : 'stop';
}

/**
 * Output items → our answer: text from `message` items (refusals included), one tool call per
 * `function_call` (its `call_id` is the id results answer), reasoning items kept whole as
 * thinking blocks of type `reasoning` (so they can be sent back, encrypted content included) and
 * their summaries as `reasoningContent`.
 */
function fromOutput(response: Json, output: Json[], provider: string, model: string): LLMResponse {
  let text = '';
  const summaries: string[] = [];
  const blocks: ThinkingBlock[] = [];
  const raw: { id?: unknown; name?: unknown; arguments?: unknown }[] = [];
  for (const item of output) {
    if (item?.type === 'message') {
      for (const part of (item.content as Json[] | undefined) ?? []) {
        if (part?.type === 'output_text' && typeof part.text === 'string') text += part.text;
        else if (part?.type === 'refusal' && typeof part.refusal === 'string') text += part.refusal;
      }
    } else if (item?.type === 'function_call') {
      raw.push({ id: item.call_id, name: item.name, arguments: item.arguments });
    } else if (item?.type === 'reasoning' && typeof item.id === 'string') {
      blocks.push(reasoningBlock(item));
      for (const s of (item.summary as Json[] | undefined) ?? []) if (typeof s?.text === 'string') summaries.push(s.text);
    }
  }
  const toolCalls = finishToolCalls(raw);
  const out: LLMResponse = {
    content: text === '' ? null : text,
    toolCalls,
    finishReason: finishReason(response, toolCalls.length > 0),
    usage: responsesUsage(response.usage),
    reasoningContent: summaries.length > 0 ? summaries.join('\n\n') : null,
    provider,
    model: typeof response.model === 'string' ? response.model : model,
  };
  if (blocks.length > 0) out.thinkingBlocks = blocks;
  return out;
}

/** A Responses JSON answer → `LLMResponse`; a `failed` response throws its error. */
export function parseResponsesResponse(response: Json, provider: string, model: string): LLMResponse {
  if (response?.status === 'failed' || (response?.error && !Array.isArray(response?.output))) throw apiError(response.error, `${provider}: the response failed`);
  return fromOutput(response, Array.isArray(response?.output) ? response.output : [], provider, model);
}

interface CallState {
  index: number;
  args: string[];
}

/**
 * Assembles a Responses event stream: text, refusal and reasoning deltas as they come,
 * function-call arguments by output item (their deltas may be split anywhere), finished items
 * from `response.output_item.done`, usage from the final `response.completed`/`incomplete`.
 * `push` is synchronous (the per-event hot path); `finish` throws when no final event arrived.
 */
export class ResponsesStreamAccumulator {
  private final: Json | null = null;
  private readonly items = new Map<number, Json>();
  private readonly calls = new Map<number, CallState>();
  private model: string | undefined;

  constructor(private readonly provider: string) {}

  push(event: Json, out: LLMStreamEvent[]): void {
    switch (event.type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (typeof event.delta === 'string' && event.delta !== '') out.push({ type: 'text_delta', delta: event.delta });
        return;
      case 'response.function_call_arguments.delta': {
        const call = this.calls.get(event.output_index);
        if (call && typeof event.delta === 'string' && event.delta !== '') {
          call.args.push(event.delta);
          out.push({ type: 'tool_call_delta', index: call.index, argumentsDelta: event.delta });
        }
        return;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (typeof event.delta === 'string' && event.delta !== '') out.push({ type: 'reasoning_delta', delta: event.delta });
        return;
      case 'response.output_item.added':
        if (event.item?.type === 'function_call') {
          const index = this.calls.size;
          this.calls.set(event.output_index, { index, args: [] });
          const delta: LLMStreamEvent = { type: 'tool_call_delta', index };
          if (typeof event.item.call_id === 'string') delta.id = event.item.call_id;
          if (typeof event.item.name === 'string') delta.name = event.item.name;
          out.push(delta);
        }
        return;
      case 'response.output_item.done':
        if (event.item) this.items.set(event.output_index, event.item);
        return;
      case 'response.created':
      case 'response.in_progress':
        if (typeof event.response?.model === 'string') this.model = event.response.model;
        return;
      case 'response.completed':
      case 'response.incomplete':
        this.final = event.response ?? {};
        return;
      case 'response.failed':
        throw apiError(event.response?.error, `${this.provider}: the response failed`);
      case 'error':
        throw apiError(event, `${this.provider}: error event in stream`);
      default:
    }
  }

  /** Whether the final event arrived (a stream without one was cut). */
  get finished(): boolean {
    return this.final !== null;
  }

  /** The assembled answer; throws a `ProviderError` when the stream ended before its final event. */
  finish(model: string): LLMResponse {
    if (this.final === null) {
      throw new ProviderError(`${this.provider}: the stream ended before the response completed; the partial answer was discarded.`, {
        kind: 'stream_interrupted',
        retryable: true,
        provider: this.provider,
      });
    }
    const finalOutput: unknown = this.final.output;
    // The final event repeats every item; a proxy that trims it still sent each item's `done`.
    const output = Array.isArray(finalOutput) && finalOutput.length > 0 ? (finalOutput as Json[]) : this.streamedItems();
    return fromOutput(this.final, output, this.provider, this.model ?? model);
  }

  private streamedItems(): Json[] {
    return [...this.items.entries()].sort((a, b) => a[0] - b[0]).map(([index, item]) => {
      const call = this.calls.get(index);
      return item.type === 'function_call' && call && typeof item.arguments !== 'string' ? { ...item, arguments: call.args.join('') } : item;
    });
  }
}
