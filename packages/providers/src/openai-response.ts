import type { LLMResponse, LLMStreamEvent, Usage } from '@nanobot/schema';
import { ProviderError } from './provider-error.js';
import { finishToolCalls } from './finish-tool-calls.js';
import { extractTextToolCalls } from './text-tool-calls.js';
import type { ProviderSpec } from './registry/provider-spec.js';

type Json = Record<string, any>;

/** How an OpenAI-compatible answer is read. */
export interface OpenAIResponseOptions {
  /** Turn `<tool_call>` text into tool calls when there are no structured ones (default true). */
  textToolCalls?: boolean;
  /** The provider's spec: StepFun's answer in `reasoning`, Mistral's thinking blocks in the content. */
  spec?: ProviderSpec;
}

/** Thinking text of Mistral-style `{ type: 'thinking', thinking: [{ type: 'text', text }] }` content parts. */
function thinkingText(content: unknown): string | null {
  if (!Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const part of content as Json[]) {
    if (part?.type !== 'thinking') continue;
    const inner = part.thinking;
    if (typeof inner === 'string') parts.push(inner);
    else if (Array.isArray(inner)) for (const piece of inner as Json[]) if (typeof piece?.text === 'string') parts.push(piece.text);
  }
  return parts.length > 0 ? parts.join('') : null;
}

/** Text of string or part-list content, thinking parts left out (they are reasoning). */
function visibleText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  return (content as Json[]).map((p) => (p?.type !== 'thinking' && typeof p?.text === 'string' ? p.text : '')).join('');
}

/**
 * Merges streamed `reasoning_details` fragments: entries with the same `index` are one detail
 * whose string fields (`text`, `summary`, `data`, `signature`) arrive in pieces; entries without
 * an index stand alone. The result is the list a non-streamed answer would carry.
 */
function mergeReasoningDetails(into: Json[], fragments: Json[]): void {
  for (const fragment of fragments) {
    if (fragment === null || typeof fragment !== 'object') continue;
    const existing = typeof fragment.index === 'number' ? into.find((d) => d.index === fragment.index) : undefined;
    if (!existing) {
      into.push({ ...fragment });
      continue;
    }
    for (const [key, value] of Object.entries(fragment)) {
      if (typeof value === 'string' && typeof existing[key] === 'string' && key !== 'type' && key !== 'id' && key !== 'format') existing[key] += value;
      else if (value !== null && value !== undefined) existing[key] = value;
    }
  }
}

/** Usage in our shape from an OpenAI `usage` object (cached tokens from `prompt_tokens_details`). */
export function openAIUsage(usage: Json | null | undefined): Usage {
  if (!usage) return { inputTokens: 0, outputTokens: 0 };
  const out: Usage = { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 };
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.cached_tokens;
  if (typeof cached === 'number') out.cachedTokens = cached;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') out.reasoningTokens = reasoning;
  return out;
}

/**
 * Applies `extractTextToolCalls` when the answer has no structured calls: the found calls become
 * real tool calls and their markup leaves the visible content.
 */
function withTextToolCalls(response: LLMResponse, enabled: boolean): LLMResponse {
  if (!enabled || response.toolCalls.length > 0 || !response.content) return response;
  const { content, calls } = extractTextToolCalls(response.content);
  if (calls.length === 0) return response;
  return { ...response, content, toolCalls: finishToolCalls(calls) };
}

function emptyChoices(provider: string): ProviderError {
  return new ProviderError(`${provider}: the API returned an empty choices list.`, { kind: 'empty_response', retryable: false, provider });
}

/** A chat-completions JSON answer → `LLMResponse`; tool calls are read from every choice. */
export function parseOpenAICompletion(completion: Json, provider: string, model: string, options: OpenAIResponseOptions = {}): LLMResponse {
  const choices: Json[] = Array.isArray(completion?.choices) ? completion.choices : [];
  if (choices.length === 0) throw emptyChoices(provider);
  const first = choices[0];
  const message: Json = first.message ?? {};
  const rawCalls: { id?: unknown; name?: unknown; arguments?: unknown; extra?: Json }[] = [];
  for (const choice of choices) {
    for (const tc of (choice.message?.tool_calls as Json[] | undefined) ?? []) {
      const extra: Json = {};
      if (tc.extra_content) extra.extra_content = tc.extra_content;
      if (tc.provider_specific_fields) extra.provider_specific_fields = tc.provider_specific_fields;
      if (tc.function?.provider_specific_fields) extra.function_provider_specific_fields = tc.function.provider_specific_fields;
      const args = tc.function?.arguments;
      rawCalls.push({ id: tc.id, name: tc.function?.name, arguments: args !== null && typeof args === 'object' ? JSON.stringify(args) : args, extra });
    }
    if (choice.message?.function_call) rawCalls.push({ name: choice.message.function_call.name, arguments: choice.message.function_call.arguments });
  }
  // Some gateways answer with content parts, and a refusal arrives in its own field.
  let content = visibleText(message.content) ?? (typeof message.refusal === 'string' ? message.refusal : null);
  // StepFun answers in `reasoning` and leaves `content` empty.
  if (!content && options.spec?.reasoningAsContent && typeof message.reasoning === 'string') content = message.reasoning;
  let reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning !== 'string' && options.spec?.extractThinkingBlocks) reasoning = thinkingText(message.content);
  const response: LLMResponse = {
    content: content === '' ? null : content,
    toolCalls: finishToolCalls(rawCalls),
    finishReason: first.finish_reason ?? 'stop',
    usage: openAIUsage(completion.usage),
    reasoningContent: typeof reasoning === 'string' ? reasoning : null,
    provider,
    model: completion.model ?? model,
  };
  if (Array.isArray(message.reasoning_details) && message.reasoning_details.length > 0) response.messageFields = { reasoning_details: message.reasoning_details };
  return withTextToolCalls(response, options.textToolCalls ?? true);
}

interface CallAccumulator {
  id?: string;
  name?: string;
  args: string[];
  extra: Json;
}

/**
 * Assembles streamed chat-completions chunks: text and reasoning deltas, tool-call fragments by
 * index, usage from the final choice-less chunk. `push` appends the events one chunk produces;
 * `finish` returns the response, or throws if the stream never reached a finish reason.
 */
export class OpenAIStreamAccumulator {
  private text = '';
  private readonly reasoning: string[] = [];
  private readonly calls = new Map<number, CallAccumulator>();
  private finishReason: string | null = null;
  private usage: Json | null = null;
  private sawChoice = false;
  private model: string | undefined;
  private readonly reasoningDetails: Json[] = [];
  private readonly thinking: string[] = [];
  private readonly textToolCalls: boolean;
  private readonly spec: ProviderSpec | undefined;

  constructor(
    private readonly provider: string,
    options: OpenAIResponseOptions | boolean = {},
  ) {
    const opts = typeof options === 'boolean' ? { textToolCalls: options } : options;
    this.textToolCalls = opts.textToolCalls ?? true;
    this.spec = opts.spec;
  }

  /** Folds one parsed chunk in and appends the deltas it carries to `out` (synchronous, on the per-event hot path). */
  push(chunk: Json, out: LLMStreamEvent[]): void {
    if (chunk.error) {
      // Gateways (OpenRouter, LiteLLM) report upstream failures inside the stream.
      throw Object.assign(new Error(chunk.error.message ?? 'error event in stream'), { error: chunk.error });
    }
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    const choices: Json[] | undefined = chunk.choices;
    if (!choices || choices.length === 0) return;
    this.sawChoice = true;
    for (const choice of choices) {
      const delta: Json | undefined = choice.delta;
      if (delta) {
        const first = (choice.index ?? 0) === 0;
        const text = visibleText(delta.content);
        if (text && first) {
          this.text += text;
          out.push({ type: 'text_delta', delta: text });
        }
        const blocks = this.spec?.extractThinkingBlocks ? thinkingText(delta.content) : null;
        if (blocks && first) {
          this.thinking.push(blocks);
          out.push({ type: 'reasoning_delta', delta: blocks });
        }
        const r = delta.reasoning_content ?? delta.reasoning;
        if (typeof r === 'string' && r !== '') {
          this.reasoning.push(r);
          out.push({ type: 'reasoning_delta', delta: r });
        }
        if (Array.isArray(delta.reasoning_details) && first) mergeReasoningDetails(this.reasoningDetails, delta.reasoning_details as Json[]);
        if (Array.isArray(delta.tool_calls)) for (const tc of delta.tool_calls as Json[]) this.pushCall(this.callIndex(tc), tc, out);
        if (delta.function_call) this.pushCall(0, { function: delta.function_call }, out);
      }
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  /**
   * Where a fragment belongs. Servers that omit `index` (some local ones) send each call whole
   * with its own id: a new id starts a new call, no id continues the last one.
   */
  private callIndex(tc: Json): number {
    if (typeof tc.index === 'number') return tc.index;
    if (typeof tc.id === 'string' && tc.id !== '') {
      for (const [index, acc] of this.calls) if (acc.id === tc.id) return index;
      return this.calls.size === 0 ? 0 : Math.max(...this.calls.keys()) + 1;
    }
    return this.calls.size === 0 ? 0 : Math.max(...this.calls.keys());
  }

  private pushCall(index: number, tc: Json, out: LLMStreamEvent[]): void {
    let acc = this.calls.get(index);
    if (!acc) {
      acc = { args: [], extra: {} };
      this.calls.set(index, acc);
    }
    const event: { type: 'tool_call_delta'; index: number; id?: string; name?: string; argumentsDelta?: string } = { type: 'tool_call_delta', index };
    if (typeof tc.id === 'string' && tc.id !== '' && !acc.id) acc.id = event.id = tc.id;
    const name = tc.function?.name;
    if (typeof name === 'string' && name !== '' && !acc.name) acc.name = event.name = name;
    const rawArgs = tc.function?.arguments;
    // A few servers send the arguments as an object rather than JSON text.
    const args = rawArgs !== null && typeof rawArgs === 'object' ? JSON.stringify(rawArgs) : rawArgs;
    if (typeof args === 'string' && args !== '') {
      acc.args.push(args);
      event.argumentsDelta = args;
    }
    if (tc.extra_content) acc.extra.extra_content = tc.extra_content;
    if (tc.provider_specific_fields) acc.extra.provider_specific_fields = tc.provider_specific_fields;
    if (tc.function?.provider_specific_fields) acc.extra.function_provider_specific_fields = tc.function.provider_specific_fields;
    out.push(event);
  }

  /** Whether a finish reason arrived (a stream without one was cut). */
  get finished(): boolean {
    return this.finishReason !== null;
  }

  /** The assembled answer; throws a `ProviderError` when the stream ended without a finish reason. */
  finish(model: string): LLMResponse {
    if (!this.sawChoice && this.finishReason === null) throw emptyChoices(this.provider);
    if (this.finishReason === null) {
      throw new ProviderError(`${this.provider}: the stream ended before the model finished (no finish_reason); the partial answer was discarded.`, {
        kind: 'stream_interrupted',
        retryable: true,
        provider: this.provider,
      });
    }
    const raw = [...this.calls.entries()].sort((a, b) => a[0] - b[0]).map(([, acc]) => ({ id: acc.id, name: acc.name, arguments: acc.args.join(''), extra: acc.extra }));
    let text = this.text;
    let reasoning = this.reasoning.join('');
    // StepFun streams its answer as reasoning.
    if (text === '' && this.spec?.reasoningAsContent && reasoning !== '') [text, reasoning] = [reasoning, ''];
    if (reasoning === '' && this.thinking.length > 0) reasoning = this.thinking.join('');
    const response: LLMResponse = {
      content: text === '' ? null : text,
      toolCalls: finishToolCalls(raw),
      finishReason: this.finishReason,
      usage: openAIUsage(this.usage),
      reasoningContent: reasoning === '' ? null : reasoning,
      provider: this.provider,
      model: this.model ?? model,
    };
    if (this.reasoningDetails.length > 0) response.messageFields = { reasoning_details: this.reasoningDetails };
    return withTextToolCalls(response, this.textToolCalls);
  }
}
