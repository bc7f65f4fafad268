import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, CountTokensCommand } from '@aws-sdk/client-bedrock-runtime';
import type { BedrockRuntimeClientConfig, ConverseCommandInput, ConverseStreamCommandInput, CountTokensCommandInput } from '@aws-sdk/client-bedrock-runtime';
import type { LLMRequest, LLMResponse, TokenCount } from '@nanobot/schema';
import { BaseProvider } from '../base-provider.js';
import type { BaseProviderOptions } from '../base-provider.js';
import { toProviderError } from '../classify-error.js';
import type { IdleTimer } from '../idle-timer.js';
import { ProviderAbortError, ProviderError } from '../provider-error.js';
import type { StreamSource } from '../provider-stream.js';
import { buildConverseInput } from './bedrock-request.js';
import type { ConverseParamOptions } from './bedrock-request.js';
import { BedrockStreamAccumulator, parseConverseOutput } from './bedrock-response.js';

/** Options of `BedrockProvider`. */
export interface BedrockProviderOptions extends BaseProviderOptions, ConverseParamOptions {
  /**
   * A Bedrock API key (bearer token), as `AWS_BEARER_TOKEN_BEDROCK` holds one. Absent: the SDK's
   * own chain (`AWS_BEARER_TOKEN_BEDROCK`, then AWS credentials from the environment, profile,
   * SSO, instance role, …).
   */
  apiKey?: string;
  /** AWS region (default: the SDK's, from `AWS_REGION` / the profile). */
  region?: string;
  /** A shared-config profile for the credential chain. */
  profile?: string;
  /** Another endpoint (a VPC endpoint, a local test server). */
  endpoint?: string;
  /** Name reported in responses and errors (default `bedrock`). */
  name?: string;
  /** More client settings (request handler, credentials, …), applied last. */
  clientConfig?: BedrockRuntimeClientConfig;
  /** A ready client; its own retries should be off (`maxAttempts: 1`). */
  client?: BedrockRuntimeClient;
}

/** The `bedrock/` routing prefix is ours, not a Bedrock model id. */
function modelId(model: string): string {
  return model.startsWith('bedrock/') ? model.slice('bedrock/'.length) : model;
}

interface AwsErrorLike {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  $response?: { headers?: Record<string, string> };
  streamEvent?: string;
}

/** Status of an exception that arrived inside a stream (its HTTP status was 200). */
const STREAM_EXCEPTION_STATUS: Readonly<Record<string, number>> = {
  ThrottlingException: 429,
  ServiceUnavailableException: 503,
  InternalServerException: 500,
  ModelStreamErrorException: 500,
  ModelTimeoutException: 408,
  ValidationException: 400,
};

/**
 * An AWS SDK error in the shape our classifier reads (`status`, `{ type, message }`, headers):
 * the HTTP status from `$metadata`, or for an exception inside a stream the status its name
 * stands for; `ThrottlingException` and friends as the API type. Other errors pass unchanged.
 */
function apiShape(error: unknown): unknown {
  const e = error as AwsErrorLike | null;
  if (!e || typeof e !== 'object' || typeof e.name !== 'string' || !(e.$metadata || e.streamEvent || /Exception$/.test(e.name))) return error;
  const metaStatus = e.$metadata?.httpStatusCode;
  const status = metaStatus !== undefined && metaStatus !== 200 ? metaStatus : STREAM_EXCEPTION_STATUS[e.name];
  const headers = e.$response?.headers;
  const lower = (e.message ?? '').toLowerCase();
  // Bedrock says "Input is too long for requested model" for an over-long prompt.
  const type = /too long|too many (input )?tokens|context window/.test(lower) ? 'context_length_exceeded' : e.name;
  // HTTP/2 responses carry pseudo-headers (`:status`) that a Headers object refuses.
  const plain = headers ? new Headers(Object.entries(headers).filter(([name, value]) => !name.startsWith(':') && typeof value === 'string')) : undefined;
  return { status, error: { type, message: e.message ?? e.name }, headers: plain };
}

/**
 * Amazon Bedrock's Converse API through `@aws-sdk/client-bedrock-runtime`: `Converse` for whole
 * answers, `ConverseStream` (the binary event stream, decoded by the SDK) for streams, tool use,
 * reasoning blocks with their signatures, `CountTokens` for exact counts, and our retry policy
 * and error classes (the SDK's own retries are off). Authenticates with a Bedrock API key
 * (bearer token) when one is given, else through the SDK's credential chain.
 */
export class BedrockProvider extends BaseProvider {
  readonly name: string;
  readonly client: BedrockRuntimeClient;
  private readonly paramOptions: ConverseParamOptions;

  constructor(options: BedrockProviderOptions) {
    super(options);
    this.name = options.name ?? 'bedrock';
    this.paramOptions = { defaultMaxTokens: options.defaultMaxTokens, defaultTemperature: options.defaultTemperature, additionalModelRequestFields: options.additionalModelRequestFields };
    const config: BedrockRuntimeClientConfig = { maxAttempts: 1 };
    if (options.region) config.region = options.region;
    if (options.profile) config.profile = options.profile;
    if (options.endpoint) config.endpoint = options.endpoint;
    if (options.apiKey) {
      const token = options.apiKey;
      config.token = async () => ({ token });
      config.authSchemePreference = ['httpBearerAuth'];
    }
    this.client = options.client ?? new BedrockRuntimeClient({ ...config, ...options.clientConfig });
  }

  /** The exact Converse input this provider would send for `request`. */
  buildParams(request: LLMRequest): Record<string, unknown> {
    return buildConverseInput(request, modelId(request.model ?? this.defaultModel), this.paramOptions);
  }

  protected async chatOnce(request: LLMRequest): Promise<LLMResponse> {
    const model = request.model ?? this.defaultModel;
    let output: unknown;
    try {
      output = await this.client.send(new ConverseCommand(this.buildParams(request) as unknown as ConverseCommandInput), { abortSignal: request.signal });
    } catch (error) {
      throw this.convertError(error, request.signal);
    }
    return parseConverseOutput(output as Record<string, unknown>, this.name, model);
  }

  /** Opens one ConverseStream attempt. */
  async openStream(request: LLMRequest, signal: AbortSignal): Promise<StreamSource> {
    const model = request.model ?? this.defaultModel;
    const output = await this.client.send(new ConverseStreamCommand(this.buildParams(request) as unknown as ConverseStreamCommandInput), { abortSignal: signal });
    if (!output.stream) throw new ProviderError(`${this.name}: ConverseStream answered without a stream.`, { kind: 'empty_response', retryable: false, provider: this.name });
    const acc = new BedrockStreamAccumulator(this.name);
    return {
      events: output.stream as AsyncIterable<unknown>,
      push: (event, out) => acc.push(event as Record<string, unknown>, out),
      finish: () => acc.finish(model),
    };
  }

  /**
   * The exact input-token count of `request` from Bedrock's `CountTokens` (the Converse form of
   * the same messages, system and tools). Rejects with a `ProviderError` when the count fails;
   * not retried.
   */
  async countTokens(request: LLMRequest): Promise<TokenCount> {
    const model = request.model ?? this.defaultModel;
    const { modelId: id, messages, system, toolConfig, additionalModelRequestFields } = this.buildParams(request);
    const converse: Record<string, unknown> = { messages };
    if (system) converse.system = system;
    if (toolConfig) converse.toolConfig = toolConfig;
    if (additionalModelRequestFields) converse.additionalModelRequestFields = additionalModelRequestFields;
    let output: { inputTokens?: number };
    try {
      output = await this.client.send(new CountTokensCommand({ modelId: id, input: { converse } } as unknown as CountTokensCommandInput), { abortSignal: request.signal });
    } catch (error) {
      throw this.convertError(error, request.signal);
    }
    if (typeof output.inputTokens !== 'number') throw new ProviderError(`${this.name}: CountTokens answered without inputTokens.`, { kind: 'empty_response', retryable: false, provider: this.name });
    return { inputTokens: output.inputTokens, provider: this.name, model };
  }

  private convertError(error: unknown, signal?: AbortSignal): ProviderError | ProviderAbortError {
    const converted = toProviderError(apiShape(error), this.name, signal);
    if (!(converted instanceof ProviderError) || converted.cause === error) return converted;
    return new ProviderError(converted.message, {
      kind: converted.kind,
      retryable: converted.retryable,
      status: converted.status,
      retryAfterMs: converted.retryAfterMs,
      provider: converted.provider,
      apiType: converted.apiType,
      apiCode: converted.apiCode,
      cause: error,
    });
  }

  /** @internal Stream failures: AWS errors (also those inside the event stream) classified like any other. */
  override streamError(error: unknown, idle: IdleTimer, signal?: AbortSignal, opened = true): Error {
    const shaped = apiShape(error);
    if (shaped === error) return super.streamError(error, idle, signal, opened);
    if (signal?.aborted) return new ProviderAbortError(undefined, { cause: error });
    return this.convertError(error, signal);
  }
}
