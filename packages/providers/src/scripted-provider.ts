import { ConfigurationError, pythonJsonDumps } from '@nanobot/schema';
import type { LLMProvider, LLMRequest, LLMResponse, LLMStreamEvent, Usage } from '@nanobot/schema';
import { ProviderAbortError, ProviderError } from './provider-error.js';
import type { ProviderErrorKind } from './provider-error.js';
import { finishToolCalls } from './finish-tool-calls.js';

/** A tool call in a script. `arguments` is an object (serialised for you) or raw text (sent as is, even malformed). */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments?: Record<string, unknown> | string;
  /** How the arguments text is split into streamed fragments (default: one fragment). */
  argumentDeltas?: string[];
}

/** One scripted model answer. */
export interface ScriptedReply {
  content?: string | null;
  toolCalls?: ScriptedToolCall[];
  reasoning?: string;
  finishReason?: string;
  usage?: Partial<Usage>;
  /** How `content` is streamed (must join to `content`; default: split after each space). */
  deltas?: string[];
  /** Reject with this instead of answering (e.g. `scriptedError('rate_limit')`). */
  error?: Error;
  /** Stream only: throw a cut-stream error after this many events (no `done`). */
  cutAfter?: number;
  /** Checks what the provider was sent. Called synchronously (not awaited); may throw (the error rejects the call); must not mutate the request. */
  expect?: (request: LLMRequest) => void;
}

/**
 * A script entry: a reply, plain text, or a function of the request and the 0-based turn (for
 * demos that react to tool results). A function may be async (awaited), may throw (rejects the
 * call) and must not mutate the request.
 */
export type ScriptStep = ScriptedReply | string | ((request: LLMRequest, turn: number) => ScriptedReply | string | Promise<ScriptedReply | string>);

/** Options of `ScriptedProvider`. */
export interface ScriptedProviderOptions {
  model?: string;
  name?: string;
  /** When the script runs out: `'throw'` (default, a ConfigurationError) or `'repeat-last'`. */
  whenExhausted?: 'throw' | 'repeat-last';
  /** Pause between streamed events, for demos that should look live (default 0: none). */
  deltaDelayMs?: number;
}

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set(['rate_limit', 'server', 'overloaded', 'timeout', 'connection', 'stream_interrupted']);

/** A `ProviderError` as a real provider would throw it, for scripts (`{ error: scriptedError('rate_limit') }`). */
export function scriptedError(kind: ProviderErrorKind, message = `scripted ${kind} error`, init: { status?: number; retryAfterMs?: number } = {}): ProviderError {
  return new ProviderError(message, { kind, retryable: RETRYABLE.has(kind), provider: 'scripted', ...init });
}

// Messages are never mutated (a nanobot invariant), so a copy of the list is enough to keep the
// log as it was sent; a deep copy per request cost more than the script itself.
function snapshot(request: LLMRequest): LLMRequest {
  const { signal: _signal, onNotice: _onNotice, ...rest } = request;
  return { ...rest, messages: [...request.messages], ...(request.tools ? { tools: [...request.tools] } : {}) };
}

function argumentsText(call: ScriptedToolCall): string {
  if (call.arguments === undefined) return '{}';
  return typeof call.arguments === 'string' ? call.arguments : pythonJsonDumps(call.arguments);
}

function splitWords(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

/**
 * A model that replays a script: for tests (assert what was sent, inject errors, cut streams)
 * and for offline demos (steps may be functions of the request, so the "model" can react to tool
 * results). Implements `chat` and `stream` exactly like the real providers, including `done`.
 */
export class ScriptedProvider implements LLMProvider {
  readonly name: string;
  readonly defaultModel: string;
  /** Snapshots (deep copies) of every request received, in order. */
  readonly requests: LLMRequest[] = [];
  private readonly steps: ScriptStep[] | ((request: LLMRequest, turn: number) => ScriptedReply | string | Promise<ScriptedReply | string>);
  private readonly options: ScriptedProviderOptions;
  private turn = 0;

  constructor(script: ScriptStep[] | ((request: LLMRequest, turn: number) => ScriptedReply | string | Promise<ScriptedReply | string>), options: ScriptedProviderOptions = {}) {
    this.steps = Array.isArray(script) ? script.slice() : script;
    this.options = options;
    this.name = options.name ?? 'scripted';
    this.defaultModel = options.model ?? 'scripted-model';
  }

  /** Script steps not yet used (Infinity for a function script). */
  get remaining(): number {
    return Array.isArray(this.steps) ? Math.max(0, this.steps.length - this.turn) : Infinity;
  }

  /** Throws unless every scripted step was used (catches tests that stop early). */
  assertDone(): void {
    if (this.remaining > 0 && this.remaining !== Infinity) throw new ConfigurationError(`ScriptedProvider: ${this.remaining} scripted step(s) were never requested.`);
  }

  private async nextReply(request: LLMRequest, logged: LLMRequest): Promise<ScriptedReply> {
    if (request.signal?.aborted) throw new ProviderAbortError();
    this.requests.push(logged);
    const turn = this.turn++;
    let step: ScriptStep | undefined;
    if (typeof this.steps === 'function') step = this.steps;
    else if (turn < this.steps.length) step = this.steps[turn];
    else if (this.options.whenExhausted === 'repeat-last' && this.steps.length > 0) step = this.steps[this.steps.length - 1];
    else throw new ConfigurationError(`ScriptedProvider: the script has ${this.steps.length} step(s) but request ${turn + 1} arrived.`);
    const value = typeof step === 'function' ? await step(request, turn) : step;
    const reply: ScriptedReply = typeof value === 'string' ? { content: value } : value;
    reply.expect?.(request);
    if (reply.error) throw reply.error;
    return reply;
  }

  private response(reply: ScriptedReply, request: LLMRequest): LLMResponse {
    const turn = this.turn - 1;
    const calls = (reply.toolCalls ?? []).map((call, i) => ({ id: call.id ?? `call_${turn}_${i}`, name: call.name, arguments: argumentsText(call) }));
    const toolCalls = finishToolCalls(calls);
    return {
      content: reply.content ?? null,
      toolCalls,
      finishReason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      usage: { inputTokens: 0, outputTokens: 0, ...reply.usage } as Usage,
      reasoningContent: reply.reasoning ?? null,
      provider: this.name,
      model: request.model ?? this.defaultModel,
    };
  }

  /** Answers with the next scripted step. */
  async chat(request: LLMRequest): Promise<LLMResponse> {
    const reply = await this.nextReply(request, snapshot(request));
    return this.response(reply, request);
  }

  /** Streams the next scripted step: reasoning, text deltas, tool-call deltas, then `done`. */
  stream(request: LLMRequest): AsyncGenerator<LLMStreamEvent> {
    // The log entry is taken at the call, not at the first `next()`: a generator body runs late,
    // and by then the caller may have appended to the array it passed.
    return this.streamReply(request, snapshot(request));
  }

  private async *streamReply(request: LLMRequest, logged: LLMRequest): AsyncGenerator<LLMStreamEvent> {
    const reply = await this.nextReply(request, logged);
    const response = this.response(reply, request);
    const events: LLMStreamEvent[] = [];
    if (reply.reasoning) events.push({ type: 'reasoning_delta', delta: reply.reasoning });
    if (reply.content) for (const delta of reply.deltas ?? splitWords(reply.content)) events.push({ type: 'text_delta', delta });
    (reply.toolCalls ?? []).forEach((call, index) => {
      events.push({ type: 'tool_call_delta', index, id: call.id ?? `call_${this.turn - 1}_${index}`, name: call.name });
      for (const argumentsDelta of call.argumentDeltas ?? [argumentsText(call)]) events.push({ type: 'tool_call_delta', index, argumentsDelta });
    });
    let sent = 0;
    for (const event of events) {
      if (reply.cutAfter !== undefined && sent >= reply.cutAfter) break;
      if (this.options.deltaDelayMs) await new Promise((r) => setTimeout(r, this.options.deltaDelayMs));
      if (request.signal?.aborted) throw new ProviderAbortError();
      sent++;
      yield event;
    }
    if (reply.cutAfter !== undefined) {
      throw new ProviderError(`${this.name}: the stream was cut before the model finished; the partial answer was discarded.`, {
        kind: 'stream_interrupted',
        retryable: true,
        provider: this.name,
      });
    }
    yield { type: 'done', response };
  }
}
