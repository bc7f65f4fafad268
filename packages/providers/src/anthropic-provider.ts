import Anthropic from '@anthropic-ai/sdk';
import { Stream } from '@anthropic-ai/sdk/core/streaming';
import type { LLMRequest, LLMResponse, LLMStreamEvent, ModelLimits, ModelLimitsRequest, TokenCount } from '@nanobot/schema';
import { limitsFromAnthropicModel } from './model-limits/published-limits.js';
import { ProviderError } from './provider-error.js';
import { anthropicBetas, buildAnthropicParams } from './anthropic-request.js';
import type { AnthropicParamOptions } from './anthropic-request.js';
import { AnthropicStreamAccumulator, parseAnthropicMessage } from './anthropic-response.js';
import { BaseProvider } from './base-provider.js';
import type { BaseProviderOptions } from './base-provider.js';
import { sdkClientOptions } from './sdk-client-options.js';
import type { SdkClientOptions } from './sdk-client-options.js';
import type { StreamSource } from './provider-stream.js';
import { toProviderError } from './classify-error.js';

/** Options of `AnthropicProvider`. */
export interface AnthropicProviderOptions extends BaseProviderOptions, AnthropicParamOptions, SdkClientOptions {
  apiKey?: string;
  /** API root without `/v1` (a trailing `/v1` is removed: the SDK adds it itself). */
  baseUrl?: string;
  headers?: Record<string, string>;
  /** Wait for response headers, in ms (default 600 000; setting one also avoids the SDK's "Streaming is required" refusal). */
  timeoutMs?: number;
  /** Name reported in responses and errors (default `anthropic`). */
  name?: string;
  /** A ready client; its own retries should be off. */
  client?: Anthropic;
  /**
   * Whether the endpoint publishes model limits on `/v1/models/{id}` (default true: Anthropic's
   * API does; `createProvider` turns it off for Anthropic-compatible vendors that do not).
   */
  publishesModelLimits?: boolean;
}

/**
 * Claude through the official `@anthropic-ai/sdk` Messages API: our messages converted on a copy
 * (all system messages kept, tool_use/tool_result blocks, lossless turn merging, thinking blocks,
 * prompt-cache markers), streaming assembly, and our retry policy.
 */
export class AnthropicProvider extends BaseProvider {
  readonly name: string;
  readonly client: Anthropic;
  private readonly paramOptions: AnthropicParamOptions;
  /** The model's window and largest reply from `/v1/models/{id}` (see `LLMProvider.modelLimits`); absent when `publishesModelLimits` is false. */
  readonly modelLimits?: (request: ModelLimitsRequest) => Promise<ModelLimits>;

  constructor(options: AnthropicProviderOptions) {
    super(options);
    this.name = options.name ?? 'anthropic';
    this.paramOptions = { cacheControl: options.cacheControl, defaultMaxTokens: options.defaultMaxTokens, defaultTemperature: options.defaultTemperature };
    this.client =
      options.client ??
      new Anthropic({
        apiKey: options.apiKey,
        baseURL: options.baseUrl?.replace(/\/v1\/?$/, ''),
        defaultHeaders: options.headers,
        timeout: options.timeoutMs ?? 600_000,
        maxRetries: 0,
        ...sdkClientOptions(options),
      });
    if (options.publishesModelLimits !== false) this.modelLimits = (request) => this.fetchModelLimits(request);
  }

  private async fetchModelLimits(request: ModelLimitsRequest): Promise<ModelLimits> {
    const model = request.model ?? this.defaultModel;
    let info: unknown;
    try {
      info = await this.client.models.retrieve(model, {}, { signal: request.signal });
    } catch (error) {
      throw toProviderError(error, this.name, request.signal);
    }
    return limitsFromAnthropicModel(info, this.name, model);
  }

  /** The exact request body this provider would send for `request`. */
  buildParams(request: LLMRequest): Record<string, unknown> {
    return buildAnthropicParams(request, request.model ?? this.defaultModel, this.paramOptions);
  }

  /**
   * The exact input-token count of `request` from Anthropic's `/v1/messages/count_tokens` (the same body `chat` would send,
   * without its output settings). Rejects with a `ProviderError` when the count fails; not retried.
   */
  async countTokens(request: LLMRequest): Promise<TokenCount> {
    const model = request.model ?? this.defaultModel;
    const params = this.buildParams(request);
    const body = Object.fromEntries(Object.entries(params).filter(([key]) => ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking'].includes(key)));
    let counted: { input_tokens?: unknown };
    try {
      counted = (await this.client.messages.countTokens(body as unknown as Anthropic.MessageCountTokensParams, { signal: request.signal })) as { input_tokens?: unknown };
    } catch (error) {
      throw toProviderError(error, this.name, request.signal);
    }
    if (typeof counted.input_tokens !== 'number') throw new ProviderError(`${this.name}: the count answered without input_tokens.`, { kind: 'empty_response', retryable: false, provider: this.name });
    return { inputTokens: counted.input_tokens, provider: this.name, model };
  }

  protected async chatOnce(request: LLMRequest): Promise<LLMResponse> {
    const model = request.model ?? this.defaultModel;
    const params = this.buildParams(request);
    let message: unknown;
    try {
      message = await this.client.messages.create(params as unknown as Anthropic.MessageCreateParamsNonStreaming, { signal: request.signal, ...betaHeaders(params) });
    } catch (error) {
      // The SDK refuses some long non-streaming calls before sending; stream those instead.
      if (error instanceof Error && /streaming is required/i.test(error.message)) return this.collect(request);
      throw toProviderError(error, this.name, request.signal);
    }
    return parseAnthropicMessage(message as Record<string, unknown>, this.name, model);
  }

  private async collect(request: LLMRequest): Promise<LLMResponse> {
    try {
      const source = await this.openStream(request, request.signal ?? new AbortController().signal);
      const out: LLMStreamEvent[] = [];
      for await (const event of source.events) {
        source.push(event, out);
        out.length = 0;
      }
      return source.finish();
    } catch (error) {
      throw toProviderError(error, this.name, request.signal);
    }
  }

  /**
   * Opens one streaming attempt (used by the shared stream iterator). The SDK sends the request
   * and parses the SSE framing; we read its raw server-sent events and dispatch them ourselves
   * instead of through its `Stream` iterator. That iterator is one more async generator per event
   * and, on top of it, our layer cost ~10% of the raw SDK's time on a 1,000-delta stream; reading
   * one level lower makes the whole path about as cheap as the raw SDK. What the iterator did is
   * kept: `ping` and nameless events skipped, an `error` event thrown as the SDK's `APIError`.
   * (A `client` with OpenTelemetry tracing on records the call's span without its body.)
   */
  async openStream(request: LLMRequest, signal: AbortSignal): Promise<StreamSource> {
    const model = request.model ?? this.defaultModel;
    const params = { ...this.buildParams(request), stream: true };
    const acc = new AnthropicStreamAccumulator(this.name);
    const response = await this.client.messages.create(params as unknown as Anthropic.MessageCreateParamsStreaming, { signal, ...betaHeaders(params) }).asResponse();
    return {
      events: Stream.rawEvents(response, new AbortController()),
      push: (event, out) => {
        const sse = event as { event: string | null; data: string };
        if (sse.event === 'error') throw anthropicStreamError(sse.data, response.headers);
        if (sse.event !== null && sse.event !== 'ping' && sse.data) acc.push(JSON.parse(sse.data) as Record<string, unknown>, out);
      },
      finish: () => acc.finish(model),
    };
  }
}

/** An in-stream `error` event as the SDK's own iterator throws it (classified like an HTTP error). */
function anthropicStreamError(data: string, headers: Headers): Error {
  let body: unknown = data;
  try {
    body = JSON.parse(data);
  } catch {
    // Not JSON: the raw text is the error body.
  }
  const type = (body as { error?: { type?: unknown } } | null)?.error?.type;
  return new Anthropic.APIError(undefined, body as object, undefined, headers, (typeof type === 'string' ? type : undefined) as ConstructorParameters<typeof Anthropic.APIError>[4]);
}

/** Request options carrying the beta header a body's server-side context management needs (none: nothing). */
function betaHeaders(params: Record<string, unknown>): { headers?: Record<string, string> } {
  const betas = anthropicBetas(params);
  return betas.length > 0 ? { headers: { 'anthropic-beta': betas.join(',') } } : {};
}
