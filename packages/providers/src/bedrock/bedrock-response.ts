import type { LLMResponse, LLMStreamEvent, ThinkingBlock, Usage } from '@nanobot/schema';
import { finishToolCalls } from '../finish-tool-calls.js';
import { ProviderError } from '../provider-error.js';

type Json = Record<string, any>;

/** Converse stop reasons → our (OpenAI's) finish reasons. */
export function bedrockFinishReason(stopReason: string | undefined): string {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      return stopReason ?? 'stop';
  }
}

/** Converse usage → ours (`inputTokens` includes cache reads and writes, as everywhere). */
export function bedrockUsage(usage: Json | undefined): Usage {
  if (!usage) return { inputTokens: 0, outputTokens: 0 };
  const read = typeof usage.cacheReadInputTokens === 'number' ? usage.cacheReadInputTokens : 0;
  const write = typeof usage.cacheWriteInputTokens === 'number' ? usage.cacheWriteInputTokens : 0;
  const out: Usage = { inputTokens: (usage.inputTokens ?? 0) + read + write, outputTokens: usage.outputTokens ?? 0 };
  if (read) out.cachedTokens = read;
  if (write) out.cacheCreationTokens = write;
  return out;
}

function base64(bytes: unknown): string | undefined {
  if (bytes instanceof Uint8Array) return Buffer.from(bytes).toString('base64');
  return typeof bytes === 'string' ? bytes : undefined;
}

/** A Converse `reasoningContent` block → the thinking block we store (signature byte-exact). */
function thinkingBlock(reasoning: Json): ThinkingBlock | undefined {
  const text = reasoning.reasoningText;
  // Marked as Bedrock's: the governor sends signed reasoning back only to the API that signed it.
  if (text && typeof text.text === 'string') return { type: 'thinking', thinking: text.text, signature: typeof text.signature === 'string' ? text.signature : '', producer: 'bedrock' };
  const redacted = base64(reasoning.redactedContent);
  return redacted !== undefined ? { type: 'redacted_thinking', redactedContentBase64: redacted, producer: 'bedrock' } : undefined;
}

/** A Converse answer (`ConverseCommandOutput`) → `LLMResponse`. */
export function parseConverseOutput(output: Json, provider: string, model: string): LLMResponse {
  const content: Json[] = output?.output?.message?.content ?? [];
  let text = '';
  const reasoning: string[] = [];
  const thinking: ThinkingBlock[] = [];
  const calls: { id?: unknown; name?: unknown; arguments?: unknown }[] = [];
  for (const block of content) {
    if (typeof block.text === 'string') text += block.text;
    if (block.toolUse) calls.push({ id: block.toolUse.toolUseId, name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) });
    if (block.reasoningContent) {
      const stored = thinkingBlock(block.reasoningContent);
      if (stored) thinking.push(stored);
      if (typeof block.reasoningContent.reasoningText?.text === 'string') reasoning.push(block.reasoningContent.reasoningText.text);
    }
  }
  return {
    content: text === '' ? null : text,
    toolCalls: finishToolCalls(calls),
    finishReason: bedrockFinishReason(output?.stopReason),
    usage: bedrockUsage(output?.usage),
    reasoningContent: reasoning.length > 0 ? reasoning.join('') : null,
    thinkingBlocks: thinking.length > 0 ? thinking : null,
    provider,
    model,
  };
}

interface BlockState {
  tool?: { id: string; name: string; input: string[] };
  reasoning?: { text: string[]; signature?: string; redacted?: Uint8Array[] };
}

/**
 * Assembles ConverseStream events (`contentBlockStart`, `contentBlockDelta`, `contentBlockStop`,
 * `messageStop`, `metadata`): text and reasoning deltas as they come, tool input joined per
 * block, reasoning with its signature. An exception event (`throttlingException`, …) is thrown
 * as the SDK's error so the provider classifies it. `finish` throws when no `messageStop` came.
 */
export class BedrockStreamAccumulator {
  private text = '';
  private readonly reasoning: string[] = [];
  private readonly thinking: ThinkingBlock[] = [];
  private readonly blocks = new Map<number, BlockState>();
  private readonly calls: { index: number; id: string; name: string; arguments: string }[] = [];
  private stopReason: string | undefined;
  private usage: Json | undefined;

  constructor(private readonly provider: string) {}

  /** Folds one event in and appends the deltas it carries to `out`. */
  push(event: Json, out: LLMStreamEvent[]): void {
    for (const [name, value] of Object.entries(event)) {
      if (/Exception$/.test(name) && value) throw Object.assign(new Error(value.message ?? name), { name: name[0].toUpperCase() + name.slice(1), $fault: 'server', streamEvent: name });
    }
    if (event.contentBlockStart) {
      const index: number = event.contentBlockStart.contentBlockIndex ?? 0;
      const toolUse = event.contentBlockStart.start?.toolUse;
      if (toolUse) {
        this.blocks.set(index, { tool: { id: toolUse.toolUseId ?? '', name: toolUse.name ?? '', input: [] } });
        out.push({ type: 'tool_call_delta', index, id: toolUse.toolUseId, name: toolUse.name });
      }
    } else if (event.contentBlockDelta) {
      const index: number = event.contentBlockDelta.contentBlockIndex ?? 0;
      const delta: Json = event.contentBlockDelta.delta ?? {};
      const state = this.blocks.get(index) ?? {};
      this.blocks.set(index, state);
      if (typeof delta.text === 'string' && delta.text !== '') {
        this.text += delta.text;
        out.push({ type: 'text_delta', delta: delta.text });
      }
      if (delta.toolUse && typeof delta.toolUse.input === 'string') {
        state.tool ??= { id: '', name: '', input: [] };
        state.tool.input.push(delta.toolUse.input);
        out.push({ type: 'tool_call_delta', index, argumentsDelta: delta.toolUse.input });
      }
      if (delta.reasoningContent) {
        state.reasoning ??= { text: [] };
        const r = delta.reasoningContent;
        if (typeof r.text === 'string' && r.text !== '') {
          state.reasoning.text.push(r.text);
          this.reasoning.push(r.text);
          out.push({ type: 'reasoning_delta', delta: r.text });
        }
        if (typeof r.signature === 'string') state.reasoning.signature = (state.reasoning.signature ?? '') + r.signature;
        if (r.redactedContent instanceof Uint8Array) (state.reasoning.redacted ??= []).push(r.redactedContent);
      }
    } else if (event.contentBlockStop) {
      this.closeBlock(event.contentBlockStop.contentBlockIndex ?? 0);
    } else if (event.messageStop) {
      this.stopReason = event.messageStop.stopReason;
    } else if (event.metadata) {
      this.usage = event.metadata.usage;
    }
  }

  private closeBlock(index: number): void {
    const state = this.blocks.get(index);
    if (!state) return;
    this.blocks.delete(index);
    if (state.tool) this.calls.push({ index, id: state.tool.id, name: state.tool.name, arguments: state.tool.input.join('') });
    if (state.reasoning) {
      const text = state.reasoning.text.join('');
      if (text !== '') this.thinking.push({ type: 'thinking', thinking: text, signature: state.reasoning.signature ?? '', producer: 'bedrock' });
      else if (state.reasoning.redacted) this.thinking.push({ type: 'redacted_thinking', redactedContentBase64: Buffer.concat(state.reasoning.redacted).toString('base64'), producer: 'bedrock' });
    }
  }

  /** The assembled answer; throws a `ProviderError` when the stream ended before `messageStop`. */
  finish(model: string): LLMResponse {
    for (const index of [...this.blocks.keys()]) this.closeBlock(index);
    if (this.stopReason === undefined) {
      throw new ProviderError(`${this.provider}: the stream ended before the model finished (no messageStop); the partial answer was discarded.`, { kind: 'stream_interrupted', retryable: true, provider: this.provider });
    }
    const calls = this.calls.sort((a, b) => a.index - b.index);
    const reasoning = this.reasoning.join('');
    return {
      content: this.text === '' ? null : this.text,
      toolCalls: finishToolCalls(calls),
      finishReason: bedrockFinishReason(this.stopReason),
      usage: bedrockUsage(this.usage),
      reasoningContent: reasoning === '' ? null : reasoning,
      thinkingBlocks: this.thinking.length > 0 ? this.thinking : null,
      provider: this.provider,
      model,
    };
  }
}
