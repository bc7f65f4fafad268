import type { LLMResponse, LLMStreamEvent, Usage } from '@nanobot/schema';
import { finishToolCalls, randomCallId } from './finish-tool-calls.js';
import { ProviderError } from './provider-error.js';

/** Anthropic-style id for a missing or repeated `tool_use` id. */
const newToolUseId = (): string => `toolu_${randomCallId()}${randomCallId()}`;

type Json = Record<string, any>;

const STOP_REASONS: Record<string, string> = { tool_use: 'tool_calls', end_turn: 'stop', max_tokens: 'length', stop_sequence: 'stop' };

/** Anthropic stop reason → our (OpenAI-named) finish reason; unknown ones pass through. */
export function anthropicFinishReason(stop: string | null | undefined): string {
  if (!stop) return 'stop';
  return STOP_REASONS[stop] ?? stop;
}

/**
 * Usage in our shape. Anthropic's `input_tokens` excludes cache reads and writes, so the input
 * total adds them back (as the reference's `prompt_tokens` does); `cachedTokens` = cache reads.
 */
export function anthropicUsage(usage: Json | null | undefined): Usage {
  if (!usage) return { inputTokens: 0, outputTokens: 0 };
  const read = usage.cache_read_input_tokens ?? 0;
  const created = usage.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: (usage.input_tokens ?? 0) + read + created,
    outputTokens: usage.output_tokens ?? 0,
    cachedTokens: read,
    cacheCreationTokens: created,
  };
}

function thinkingOf(blocks: Json[]): { reasoning: string | null; thinkingBlocks: Json[] | null } {
  const kept = blocks.filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
  const text = kept.filter((b) => b.type === 'thinking').map((b) => b.thinking as string).join('');
  return { reasoning: text === '' ? null : text, thinkingBlocks: kept.length > 0 ? kept : null };
}

/** A Messages API JSON answer → `LLMResponse`. */
export function parseAnthropicMessage(message: Json, provider: string, model: string): LLMResponse {
  const blocks: Json[] = Array.isArray(message?.content) ? message.content : [];
  const text = blocks.filter((b) => b.type === 'text').map((b) => b.text as string).join('');
  const calls = blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, arguments: b.input }));
  const { reasoning, thinkingBlocks } = thinkingOf(blocks.map((b) => (b.type === 'thinking' ? { type: 'thinking', thinking: b.thinking, signature: b.signature } : b)));
  return {
    content: text === '' ? null : text,
    toolCalls: finishToolCalls(calls, newToolUseId),
    finishReason: anthropicFinishReason(message?.stop_reason),
    usage: anthropicUsage(message?.usage),
    reasoningContent: reasoning,
    thinkingBlocks: thinkingBlocks as LLMResponse['thinkingBlocks'],
    provider,
    model: message?.model ?? model,
  };
}

interface BlockState {
  type: string;
  text: string;
  /** For tool_use: ordinal among the tool calls (what consumers see as `index`). */
  toolIndex?: number;
  id?: string;
  name?: string;
  startInput?: unknown;
  signature?: string;
  data?: string;
}

/**
 * Assembles a Messages API event stream. Tool input is rebuilt from `input_json_delta` fragments
 * only (the start event's `input: {}` is a placeholder, not a prefix); usage takes
 * `message_start` and then the cumulative `message_delta` totals without adding them twice.
 */
export class AnthropicStreamAccumulator {
  private readonly blocks = new Map<number, BlockState>();
  private usage: Json = {};
  private stopReason: string | null = null;
  private stopped = false;
  private toolCount = 0;
  private model: string | undefined;

  constructor(private readonly provider: string) {}

  /** Folds one parsed stream event in and appends the deltas it carries to `out` (synchronous, on the per-event hot path). */
  push(event: Json, out: LLMStreamEvent[]): void {
    switch (event.type) {
      case 'message_start':
        this.model = event.message?.model;
        this.usage = { ...(event.message?.usage ?? {}) };
        break;
      case 'content_block_start': {
        const block: Json = event.content_block ?? {};
        const state: BlockState = { type: block.type, text: '' };
        if (block.type === 'tool_use') {
          state.toolIndex = this.toolCount++;
          state.id = block.id;
          state.name = block.name;
          state.startInput = block.input;
          out.push({ type: 'tool_call_delta', index: state.toolIndex, id: block.id, name: block.name });
        } else if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
          state.text += block.text;
          out.push({ type: 'text_delta', delta: block.text });
        } else if (block.type === 'redacted_thinking') {
          state.data = block.data;
        }
        this.blocks.set(event.index, state);
        break;
      }
      case 'content_block_delta': {
        const state = this.blocks.get(event.index);
        const delta: Json = event.delta ?? {};
        if (!state) break;
        if (delta.type === 'text_delta') {
          if (!delta.text) break;
          state.text += delta.text;
          out.push({ type: 'text_delta', delta: delta.text });
        } else if (delta.type === 'input_json_delta' && delta.partial_json) {
          state.text += delta.partial_json;
          out.push({ type: 'tool_call_delta', index: state.toolIndex ?? 0, argumentsDelta: delta.partial_json });
        } else if (delta.type === 'thinking_delta' && delta.thinking) {
          state.text += delta.thinking;
          out.push({ type: 'reasoning_delta', delta: delta.thinking });
        } else if (delta.type === 'signature_delta') {
          state.signature = delta.signature;
        }
        break;
      }
      case 'message_delta':
        if (event.delta?.stop_reason) this.stopReason = event.delta.stop_reason;
        // message_delta usage is cumulative: overwrite, never add.
        for (const [key, value] of Object.entries(event.usage ?? {})) if (typeof value === 'number') this.usage[key] = value;
        break;
      case 'message_stop':
        this.stopped = true;
        break;
      default:
        break;
    }
  }

  /** Whether `message_stop` arrived. */
  get finished(): boolean {
    return this.stopped;
  }

  /** The assembled answer; throws a retryable `ProviderError` (`stream_interrupted`) when `message_stop` never arrived. */
  finish(model: string): LLMResponse {
    if (!this.stopped) {
      throw new ProviderError(`${this.provider}: the stream ended before message_stop; the partial answer was discarded.`, {
        kind: 'stream_interrupted',
        retryable: true,
        provider: this.provider,
      });
    }
    const ordered = [...this.blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, s]) => s);
    const text = ordered.filter((s) => s.type === 'text').map((s) => s.text).join('');
    const calls = ordered
      .filter((s) => s.type === 'tool_use')
      .map((s) => {
        const json = s.text;
        const hasStartInput = typeof s.startInput === 'object' && s.startInput !== null && Object.keys(s.startInput).length > 0;
        return { id: s.id, name: s.name, arguments: json !== '' ? json : hasStartInput ? s.startInput : '' };
      });
    const thinking = ordered
      .filter((s) => s.type === 'thinking' || s.type === 'redacted_thinking')
      .map((s) => (s.type === 'thinking' ? { type: 'thinking', thinking: s.text, signature: s.signature ?? '' } : { type: 'redacted_thinking', data: s.data ?? '' }));
    const reasoning = thinking.filter((b) => b.type === 'thinking').map((b) => b.thinking).join('');
    return {
      content: text === '' ? null : text,
      toolCalls: finishToolCalls(calls, newToolUseId),
      finishReason: anthropicFinishReason(this.stopReason),
      usage: anthropicUsage(this.usage),
      reasoningContent: reasoning === '' ? null : reasoning,
      thinkingBlocks: thinking.length > 0 ? thinking : null,
      provider: this.provider,
      model: this.model ?? model,
    };
  }
}
