import type { Message } from '../messages/message.js';
import type { JsonSchema, ToolDefinition } from '../json-schema/tool-definition.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** A tool call the model asked for, with arguments parsed (object, or the raw text if unparseable). */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: unknown;
  /** Provider extras replayed verbatim (e.g. Gemini thought signatures). */
  extra_content?: Record<string, unknown>;
  provider_specific_fields?: Record<string, unknown>;
  function_provider_specific_fields?: Record<string, unknown>;
}

/**
 * Token usage of one model call. `inputTokens` is everything the model read, cached and
 * cache-written tokens included (Anthropic's three counters are summed into it); `cachedTokens`
 * and `cacheCreationTokens` say which part of it was a cache read or a cache write.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens?: number;
  cacheCreationTokens?: number;
  /** Output tokens spent on reasoning (part of `outputTokens`). */
  reasoningTokens?: number;
  [key: string]: number | undefined;
}

/**
 * Ask for a JSON answer matching `schema` (structured output). Chat Completions sends it as
 * `response_format`, Responses as `text.format`, Anthropic as `output_config.format`. The answer
 * is parsed and validated; one that does not match rejects with `StructuredOutputError`.
 */
export interface ResponseFormat {
  type: 'json_schema';
  /** Name of the schema (letters, digits, `_` and `-`; OpenAI requires one). */
  name: string;
  /** The JSON Schema of the answer (an object schema). */
  schema: JsonSchema;
  description?: string;
  /** OpenAI strict mode (default true: every property required, no extras). */
  strict?: boolean;
}

/** Something a provider tells while it works on one request (a wait before a retry, a fallback). */
export type ProviderNotice =
  | {
      type: 'retry';
      provider: string;
      /** The attempt that failed (1-based). */
      attempt: number;
      delayMs: number;
      /** Why, e.g. `rate_limit (429)`. */
      reason: string;
      status?: number;
    }
  | { type: 'fallback'; from: string; to: string; reason: string; status?: number };

/** One model answer. `finishReason` follows OpenAI's names (`stop`, `tool_calls`, `length`, `error`, …). */
export interface LLMResponse {
  content: string | null;
  toolCalls: ToolCallRequest[];
  finishReason: string;
  usage: Usage;
  reasoningContent?: string | null;
  thinkingBlocks?: { type: string; [key: string]: unknown }[] | null;
  /** Opaque continuation state for providers that have one. */
  providerState?: unknown;
  /**
   * Provider fields of the answer that belong on the stored assistant message and must go back
   * to that provider unmodified on later requests (OpenRouter's `reasoning_details`). The runner
   * copies them onto the assistant message as they are.
   */
  messageFields?: Record<string, unknown>;
  /** The validated JSON value when the request asked for a `responseFormat`. */
  parsed?: unknown;
  /** Which provider/model answered (every provider fills these; FallbackProvider keeps the answering one's). */
  provider?: string;
  model?: string;
  /**
   * True when the API rejected the request and it only succeeded after every image part was
   * replaced by a text placeholder. The caller's messages are never edited; a caller that wants
   * to stop re-sending the images strips them from its own history.
   */
  imagesStripped?: boolean;
}

/**
 * Where a request's stable prefixes end, as message indices into `LLMRequest.messages` (the
 * governor's `report.cacheBoundaries`). Providers with explicit prompt-cache markers (Anthropic,
 * Claude behind an OpenAI-compatible gateway) put their breakpoints there; the others ignore it.
 * A field is absent when the request has no such boundary.
 */
export interface CacheBreakpoints {
  /** True when the request has tool definitions: a prefix ends after the last one. */
  tools?: boolean;
  /** The last message of the leading instructions (system / developer). */
  instructions?: number;
  /** The first message kept after the history was cut (present only when something was cut). */
  cut?: number;
  /** The newest message the previous request of the conversation already ended with. */
  previous?: number;
  /** The last message. */
  last?: number;
}

/** What a provider is asked. Messages are our model; the provider converts a copy. */
export interface LLMRequest {
  messages: readonly Message[];
  tools?: readonly ToolDefinition[];
  model?: string;
  maxTokens?: number;
  temperature?: number;
  reasoningEffort?: string | null;
  toolChoice?: 'auto' | 'none' | 'required' | { name: string };
  /** Provider-specific request fields merged into the request body last (OpenAI-compatible `extra_body`). */
  extraBody?: Record<string, unknown>;
  /**
   * Server-side context management, sent as the API's `context_management` unchanged: Anthropic
   * `{ edits: [...] }` (context editing `clear_tool_uses_…` / `clear_thinking_…`, compaction
   * `compact_…`; the provider adds their beta headers), OpenAI Responses
   * `[{ type: 'compaction', compact_threshold }]`. Tell the governor too (its `serverContextManagement`
   * option), so its report says the server edits the context.
   */
  contextManagement?: Readonly<Record<string, unknown>> | readonly Readonly<Record<string, unknown>>[];
  /** Structured output: the answer must be JSON matching this schema. */
  responseFormat?: ResponseFormat;
  /**
   * Planned prompt-cache breakpoints (from the governor's report). Absent: a provider keeps its
   * own fixed placement.
   */
  cacheBreakpoints?: CacheBreakpoints;
  /**
   * Attempts for this request, overriding the provider's retry policy (`FallbackProvider` uses
   * it to move on after one failure); absent: the provider's own policy.
   */
  maxAttempts?: number;
  /** Told of retry waits and fallbacks while this request runs. Not awaited; must not throw. */
  onNotice?: (notice: ProviderNotice) => void;
  signal?: AbortSignal;
}

/** Streaming events; the stream always ends with exactly one `done` (or throws). */
export type LLMStreamEvent =
  | { type: 'text_delta'; delta: string }
  | { type: 'reasoning_delta'; delta: string }
  | { type: 'tool_call_delta'; index: number; id?: string; name?: string; argumentsDelta?: string }
  | { type: 'done'; response: LLMResponse };

/**
 * A chat model behind one interface. `chat` and `stream` reject with a `ProviderError`
 * (from @nanobot/providers) on API failures, and with an AbortError when `signal` aborts.
 */
export interface LLMProvider {
  /** Short provider id, e.g. `openai`, `anthropic`, `scripted`. */
  readonly name: string;
  /** Default model used when a request names none. */
  readonly defaultModel: string;
  /**
   * The `@nanobot/governor` target whose rules this provider's API applies (`'openai'`,
   * `'anthropic'`, `'gemini'`, `'bedrock'`, `'mistral'`, `'deepseek'`, `'openrouter'`,
   * `'responses'`, `'any'`): the runner governs every request for it. Absent: the governor's default.
   */
  readonly governorTarget?: string;
  chat(request: LLMRequest): Promise<LLMResponse>;
  stream(request: LLMRequest): AsyncIterable<LLMStreamEvent>;
  /** Optional exact counter for this provider's tokenizer. */
  readonly tokenCounter?: TokenCounter;
  /**
   * The exact input-token count of `request` as the provider bills it, from the API's own count
   * endpoint (Anthropic `count_tokens`, OpenAI Responses `input_tokens`, Bedrock `CountTokens`,
   * Gemini `countTokens`). Absent when the API has none. Contract: awaited; rejects with a
   * `ProviderError` when the count fails (callers fall back to their estimate); sends nothing
   * that a model answers, and is not retried.
   */
  countTokens?(request: LLMRequest): Promise<TokenCount>;
  /**
   * The model's window and largest reply as the provider publishes them on its models endpoint
   * (Anthropic `/v1/models/{id}` `max_input_tokens` / `max_tokens`, OpenRouter `/models`
   * `context_length` / `top_provider.max_completion_tokens`, Gemini `models.get`
   * `inputTokenLimit` / `outputTokenLimit`). Absent when the provider publishes none. Contract:
   * awaited; resolves with the fields the endpoint gave (none when it lists the model without
   * limits); rejects with a `ProviderError` when the endpoint fails or does not know the model
   * (callers fall back to the model table); not retried.
   */
  modelLimits?(request: ModelLimitsRequest): Promise<ModelLimits>;
}

/** What `LLMProvider.modelLimits` is asked. */
export interface ModelLimitsRequest {
  /** Default: the provider's `defaultModel`. */
  model?: string;
  signal?: AbortSignal;
}

/** A model's limits as its provider publishes them. */
export interface ModelLimits {
  /** Which provider and model answered. */
  provider: string;
  model: string;
  /** The input window in tokens (absent: not published). */
  contextWindow?: number;
  /** The largest `max_tokens` the model accepts (absent: not published). */
  maxOutput?: number;
}

/** An exact count of a request's input tokens. */
export interface TokenCount {
  inputTokens: number;
  /** Which provider and model counted. */
  provider: string;
  model: string;
}
