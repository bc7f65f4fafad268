import OpenAI from 'openai';
import type { LLMRequest, LLMResponse, ModelLimits, ModelLimitsRequest, TokenCount } from '@nanobot/schema';
import { toGeminiRequest } from './gemini-native/to-gemini-contents.js';
import { geminiNativeRequest } from './gemini-native/gemini-native-request.js';
import type { GeminiNativeTarget } from './gemini-native/gemini-native-request.js';
import { findListedModel, geminiNativeBase, limitsFromGeminiModel, limitsFromListedModel } from './model-limits/published-limits.js';
import type { ModelLimitsSource } from './registry/provider-spec.js';
import { BaseProvider } from './base-provider.js';
import { openAIClient } from './openai-client.js';
import type { BaseProviderOptions } from './base-provider.js';
import type { SdkClientOptions } from './sdk-client-options.js';
import type { StreamSource } from './provider-stream.js';
import { toProviderError } from './classify-error.js';
import { ProviderError } from './provider-error.js';
import { buildOpenAIParams } from './openai-request.js';
import type { OpenAIParamOptions } from './openai-request.js';
import { OpenAIStreamAccumulator, parseOpenAICompletion } from './openai-response.js';
import type { OpenAIResponseOptions } from './openai-response.js';

/** Options of `OpenAICompatProvider`. */
export interface OpenAICompatProviderOptions extends BaseProviderOptions, OpenAIParamOptions, SdkClientOptions {
  /** API key; local servers (Ollama, vLLM, LM Studio) accept any value, so it defaults to `"not-needed"` when `baseUrl` is set. */
  apiKey?: string;
  /** Endpoint including `/v1`, e.g. `http://127.0.0.1:11434/v1` for Ollama. */
  baseUrl?: string;
  /** Extra headers on every request (OpenRouter's `HTTP-Referer`, gateway auth, …). */
  headers?: Record<string, string>;
  /** Wait for response headers, in ms (default `NANOBOT_OPENAI_COMPAT_TIMEOUT_S` or 120 s). Streams are watched by `streamIdleTimeoutMs`. */
  timeoutMs?: number;
  /** Name reported in responses and errors (default `openai`). */
  name?: string;
  /** A ready client (tests, Azure, custom fetch); its own retries should be off. */
  client?: OpenAI;
  /**
   * Turn `<tool_call>{"name", "arguments"}</tool_call>` text into tool calls when an answer has no
   * structured ones (some local models do this; default true, as the reference).
   */
  textToolCalls?: boolean;
  /**
   * Where the endpoint publishes model limits (default: the spec's `modelLimitsSource`):
   * `models_list` reads them from `GET /models` (OpenRouter, Mistral, Groq, vLLM), `gemini` from
   * the native `models.get` beside Gemini's OpenAI-compatible base, `''` nowhere.
   */
  modelLimitsSource?: ModelLimitsSource;
}

function isLocalUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    return /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0|host\.docker\.internal)$/i.test(new URL(url).hostname);
  } catch {
    return false;
  }
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
  private readonly responseOptions: OpenAIResponseOptions;
  private readonly localBaseUrl: string | undefined;
  /** The model's window and largest reply as the endpoint publishes them (see `LLMProvider.modelLimits`); absent when it publishes none. */
  readonly modelLimits?: (request: ModelLimitsRequest) => Promise<ModelLimits>;
  /**
   * Gemini only (its OpenAI-compatible endpoint has no count): the exact input count from the
   * native `models/{model}:countTokens` beside it, with the same key, of the request converted to
   * Gemini's own shape (`toGeminiRequest`). See `LLMProvider.countTokens`.
   */
  readonly countTokens?: (request: LLMRequest) => Promise<TokenCount>;

  constructor(options: OpenAICompatProviderOptions) {
    super(options);
    this.name = options.name ?? 'openai';
    this.paramOptions = {
      keepReasoningContent: options.keepReasoningContent,
      nullContentWithToolCalls: options.nullContentWithToolCalls,
      cacheControl: options.cacheControl,
      defaultMaxTokens: options.defaultMaxTokens,
      defaultTemperature: options.defaultTemperature,
      spec: options.spec,
      extraBody: options.extraBody,
    };
    this.responseOptions = { textToolCalls: options.textToolCalls ?? true, spec: options.spec };
    this.localBaseUrl = isLocalUrl(options.baseUrl) ? options.baseUrl : undefined;
    this.client = openAIClient(options);
    const source = options.modelLimitsSource ?? options.spec?.modelLimitsSource ?? '';
    if (source === 'models_list') this.modelLimits = (request) => this.listedModelLimits(request);
    if (source === 'gemini') {
      const target: GeminiNativeTarget = { base: geminiNativeBase(this.client.baseURL), provider: this.name, ...(options.apiKey ? { apiKey: options.apiKey } : {}), ...(options.headers ? { headers: options.headers } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) };
      this.modelLimits = (request) => this.geminiModelLimits(target, request);
      this.countTokens = (request) => this.geminiCount(target, request);
    }
  }

  private async listedModelLimits(request: ModelLimitsRequest): Promise<ModelLimits> {
    const model = request.model ?? this.defaultModel;
    let data: unknown[];
    try {
      data = (await this.client.models.list({ signal: request.signal })).data as unknown[];
    } catch (error) {
      throw toProviderError(error, this.name, request.signal);
    }
    return limitsFromListedModel(findListedModel({ data }, this.name, model), this.name, model);
  }

  private async geminiCount(target: GeminiNativeTarget, request: LLMRequest): Promise<TokenCount> {
    const model = (request.model ?? this.defaultModel).replace(/^models\//, '');
    // The messages exactly as chat would send them (the spec's message rules applied), then in Gemini's shape.
    const sent = this.buildParams(request) as { messages: LLMRequest['messages'] };
    const generateContentRequest = { model: `models/${model}`, ...toGeminiRequest(sent.messages, request.tools ?? []) };
    const counted = (await geminiNativeRequest(target, `/models/${encodeURIComponent(model)}:countTokens`, { body: { generateContentRequest }, model, ...(request.signal ? { signal: request.signal } : {}) })) as { totalTokens?: unknown };
    if (typeof counted?.totalTokens !== 'number') throw new ProviderError(`${this.name}: the count answered without totalTokens.`, { kind: 'empty_response', retryable: false, provider: this.name });
    return { inputTokens: counted.totalTokens, provider: this.name, model };
  }

  private async geminiModelLimits(target: GeminiNativeTarget, request: ModelLimitsRequest): Promise<ModelLimits> {
    const model = (request.model ?? this.defaultModel).replace(/^models\//, '');
    const info = await geminiNativeRequest(target, `/models/${encodeURIComponent(model)}`, { model, ...(request.signal ? { signal: request.signal } : {}) });
    return limitsFromGeminiModel(info, this.name, model);
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
      throw this.decorateError(toProviderError(error, this.name, request.signal));
    }
    return parseOpenAICompletion(completion as Record<string, unknown>, this.name, model, this.responseOptions);
  }

  /** Opens one streaming attempt (used by the shared stream iterator). */
  async openStream(request: LLMRequest, signal: AbortSignal): Promise<StreamSource> {
    const model = request.model ?? this.defaultModel;
    const params = { ...this.buildParams(request), stream: true, stream_options: { include_usage: true } };
    const acc = new OpenAIStreamAccumulator(this.name, this.responseOptions);
    const events = await this.client.chat.completions.create(params as unknown as OpenAI.ChatCompletionCreateParamsStreaming, { signal });
    return {
      events: events as AsyncIterable<unknown>,
      push: (event, out) => acc.push(event as Record<string, unknown>, out),
      finish: () => acc.finish(model),
    };
  }

  /** A refused connection to a local server gets a hint naming the URL (the usual cause: it is not running). */
  protected override decorateError<E extends Error>(error: E): E {
    if (!this.localBaseUrl || !(error instanceof ProviderError) || (error.kind !== 'connection' && error.status !== 502)) return error;
    return new ProviderError(`${error.message} — is the local server running and reachable at ${this.localBaseUrl}?`, {
      kind: error.kind,
      retryable: error.retryable,
      status: error.status,
      retryAfterMs: error.retryAfterMs,
      provider: error.provider,
      apiType: error.apiType,
      apiCode: error.apiCode,
      cause: error.cause,
    }) as unknown as E;
  }
}
