import OpenAI from 'openai';
import type { LLMRequest, LLMResponse, LLMStreamEvent } from '@nanobot/schema';
import { BaseProvider } from './base-provider.js';
import type { BaseProviderOptions } from './base-provider.js';
import { toProviderError } from './classify-error.js';
import { IdleTimer } from './idle-timer.js';
import { buildOpenAIParams } from './openai-request.js';
import type { OpenAIParamOptions } from './openai-request.js';
import { OpenAIStreamAccumulator, parseOpenAICompletion } from './openai-response.js';
import { ProviderAbortError, ProviderError } from './provider-error.js';

/** Options of `OpenAICompatProvider`. */
export interface OpenAICompatProviderOptions extends BaseProviderOptions, OpenAIParamOptions {
  /** API key; local servers (Ollama, vLLM, LM Studio) accept any value, so it defaults to `"not-needed"` when `baseUrl` is set. */
  apiKey?: string;
  /** Endpoint including `/v1`, e.g. `http://127.0.0.1:11434/v1` for Ollama. */
  baseUrl?: string;
  /** Extra headers on every request (OpenRouter's `HTTP-Referer`, gateway auth, …). */
  headers?: Record<string, string>;
  /** Wait for response headers, in ms (default 120 000). Streams are watched by `streamIdleTimeoutMs`. */
  timeoutMs?: number;
  /** Name reported in responses and errors (default `openai`). */
  name?: string;
  /** A ready client (tests, Azure, custom fetch); its own retries should be off. */
  client?: OpenAI;
}

/**
 * A provider for any OpenAI-compatible chat-completions endpoint (OpenAI, OpenRouter, DeepSeek,
 * Ollama, vLLM, LM Studio …) through the official `openai` SDK, with our retries, sanitisers and
 * streaming assembly. Messages are converted on a copy; the caller's history is never changed.
 */
export class OpenAICompatProvider extends BaseProvider {
  readonly name: string;
  readonly client: OpenAI;
  private readonly paramOptions: OpenAIParamOptions;

  constructor(options: OpenAICompatProviderOptions) {
    super(options);
    this.name = options.name ?? 'openai';
    this.paramOptions = {
      keepReasoningContent: options.keepReasoningContent,
      cacheControl: options.cacheControl,
      defaultMaxTokens: options.defaultMaxTokens,
      defaultTemperature: options.defaultTemperature,
    };
    this.client =
      options.client ??
      new OpenAI({
        apiKey: options.apiKey ?? (options.baseUrl ? 'not-needed' : undefined),
        baseURL: options.baseUrl,
        defaultHeaders: options.headers,
        timeout: options.timeoutMs ?? 120_000,
        // Our policy owns retrying; SDK retries would multiply every attempt by three.
        maxRetries: 0,
      });
  }

  /** The exact request body this provider would send for `request` (for inspection and tests). */
  buildParams(request: LLMRequest): Record<string, unknown> {
    return buildOpenAIParams(request, request.model ?? this.defaultModel, this.paramOptions);
  }

  protected async chatOnce(request: LLMRequest): Promise<LLMResponse> {
    const model = request.model ?? this.defaultModel;
    const params = this.buildParams(request);
    let completion: unknown;
    try {
      completion = await this.client.chat.completions.create(params as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming, { signal: request.signal });
    } catch (error) {
      throw toProviderError(error, this.name, request.signal);
    }
    return parseOpenAICompletion(completion as Record<string, unknown>, this.name, model);
  }

  protected async *streamOnce(request: LLMRequest): AsyncGenerator<LLMStreamEvent> {
    const model = request.model ?? this.defaultModel;
    const params = { ...this.buildParams(request), stream: true, stream_options: { include_usage: true } };
    const idle = new IdleTimer(this.streamIdleTimeoutMs, request.signal);
    const acc = new OpenAIStreamAccumulator(this.name);
    const pending: LLMStreamEvent[] = [];
    const emit = (event: LLMStreamEvent): void => {
      pending.push(event);
    };
    try {
      const stream = await this.client.chat.completions.create(params as unknown as OpenAI.ChatCompletionCreateParamsStreaming, { signal: idle.signal });
      for await (const chunk of stream) {
        idle.touch();
        acc.push(chunk as unknown as Record<string, unknown>, emit);
        for (const e of pending) yield e;
        pending.length = 0;
      }
    } catch (error) {
      throw this.streamError(error, idle, request.signal);
    } finally {
      idle.stop();
    }
    // The SDK ends a stream silently when it is aborted or closed early: check both.
    if (request.signal?.aborted) throw new ProviderAbortError();
    if (idle.timedOut) throw this.streamError(undefined, idle, request.signal);
    yield { type: 'done', response: acc.finish(model) };
  }

  private streamError(error: unknown, idle: IdleTimer, signal?: AbortSignal): Error {
    if (signal?.aborted) return new ProviderAbortError(undefined, { cause: error });
    if (idle.timedOut) {
      return new ProviderError(`${this.name}: the stream stalled for more than ${Math.round(idle.timeoutMs / 1000)} seconds.`, {
        kind: 'timeout',
        retryable: true,
        provider: this.name,
        cause: error,
      });
    }
    const converted = toProviderError(error, this.name, signal);
    if (converted instanceof ProviderError && converted.kind === 'connection') {
      return new ProviderError(`${this.name}: the stream was cut before the model finished; the partial answer was discarded. (${converted.message})`, {
        kind: 'stream_interrupted',
        retryable: true,
        provider: this.name,
        cause: error,
      });
    }
    return converted;
  }
}
