import OpenAI from 'openai';
import type { LLMRequest, LLMResponse, TokenCount } from '@nanobot/schema';
import { ProviderError } from './provider-error.js';
import { BaseProvider } from './base-provider.js';
import { openAIClient } from './openai-client.js';
import type { BaseProviderOptions } from './base-provider.js';
import type { SdkClientOptions } from './sdk-client-options.js';
import { toProviderError } from './classify-error.js';
import type { StreamSource } from './provider-stream.js';
import { buildResponsesParams } from './responses-request.js';
import type { ResponsesParamOptions } from './responses-request.js';
import { ResponsesStreamAccumulator, parseResponsesResponse } from './responses-response.js';

/** Options of `OpenAIResponsesProvider`. */
export interface OpenAIResponsesProviderOptions extends BaseProviderOptions, ResponsesParamOptions, SdkClientOptions {
  apiKey?: string;
  /** Endpoint including `/v1` (default: OpenAI's). */
  baseUrl?: string;
  headers?: Record<string, string>;
  /** Wait for response headers, in ms (default `NANOBOT_OPENAI_COMPAT_TIMEOUT_S` or 120 s). */
  timeoutMs?: number;
  /** Name reported in responses and errors (default `openai-responses`). */
  name?: string;
  /** A ready client (tests, Azure, custom fetch); its own retries should be off. */
  client?: OpenAI;
}

/**
 * OpenAI's Responses API (`client.responses`) behind our provider interface: text and function
 * calls, streamed or not, with reasoning items carried across turns. By default nothing is stored
 * server-side (`store: false`): each reasoning item comes back with its encrypted content, is kept
 * on the assistant message as a thinking block of type `reasoning`, and is sent back before the
 * output it led to. Retries, abort, stall detection and error classes are the shared ones.
 */
export class OpenAIResponsesProvider extends BaseProvider {
  readonly name: string;
  readonly client: OpenAI;
  private readonly paramOptions: ResponsesParamOptions;

  constructor(options: OpenAIResponsesProviderOptions) {
    super(options);
    this.name = options.name ?? 'openai-responses';
    this.paramOptions = {
      storeless: options.storeless,
      defaultMaxTokens: options.defaultMaxTokens,
      defaultTemperature: options.defaultTemperature,
      reasoningSummary: options.reasoningSummary,
    };
    this.client = openAIClient(options);
  }

  /** The exact request body this provider would send for `request` (for inspection and tests). */
  buildParams(request: LLMRequest): Record<string, unknown> {
    return buildResponsesParams(request, request.model ?? this.defaultModel, this.paramOptions);
  }

  /**
   * The exact input-token count of `request` from OpenAI's `/v1/responses/input_tokens` (the same
   * body `chat` would send, without its output settings). Rejects with a `ProviderError` when
   * the count fails; not retried.
   */
  async countTokens(request: LLMRequest): Promise<TokenCount> {
    const model = request.model ?? this.defaultModel;
    const params = this.buildParams(request) as Record<string, unknown>;
    const keys = ['model', 'input', 'instructions', 'tools', 'tool_choice', 'reasoning', 'text', 'parallel_tool_calls'];
    const body = Object.fromEntries(Object.entries(params).filter(([key]) => keys.includes(key)));
    let counted: { input_tokens?: unknown };
    try {
      counted = (await this.client.responses.inputTokens.count(body as OpenAI.Responses.InputTokenCountParams, { signal: request.signal })) as { input_tokens?: unknown };
    } catch (error) {
      throw toProviderError(error, this.name, request.signal);
    }
    if (typeof counted.input_tokens !== 'number') throw new ProviderError(`${this.name}: the count answered without input_tokens.`, { kind: 'empty_response', retryable: false, provider: this.name });
    return { inputTokens: counted.input_tokens, provider: this.name, model };
  }

  protected async chatOnce(request: LLMRequest): Promise<LLMResponse> {
    const model = request.model ?? this.defaultModel;
    let response: unknown;
    try {
      response = await this.client.responses.create(this.buildParams(request) as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming, { signal: request.signal });
    } catch (error) {
      throw toProviderError(error, this.name, request.signal);
    }
    try {
      return parseResponsesResponse(response as Record<string, unknown>, this.name, model);
    } catch (error) {
      throw toProviderError(error, this.name, request.signal);
    }
  }

  /** Opens one streaming attempt (used by the shared stream iterator). */
  async openStream(request: LLMRequest, signal: AbortSignal): Promise<StreamSource> {
    const model = request.model ?? this.defaultModel;
    const acc = new ResponsesStreamAccumulator(this.name);
    const params = { ...this.buildParams(request), stream: true };
    const events = await this.client.responses.create(params as unknown as OpenAI.Responses.ResponseCreateParamsStreaming, { signal });
    return {
      events: events as AsyncIterable<unknown>,
      push: (event, out) => acc.push(event as Record<string, unknown>, out),
      finish: () => acc.finish(model),
    };
  }
}
