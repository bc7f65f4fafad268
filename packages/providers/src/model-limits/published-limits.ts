import type { ModelLimits } from '@nanobot/schema';
import { ProviderError } from '../provider-error.js';

/** A positive whole number of tokens, or `undefined` for anything else (null, "lots", 0). */
function tokens(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function limits(provider: string, model: string, contextWindow: number | undefined, maxOutput: number | undefined): ModelLimits {
  const out: ModelLimits = { provider, model };
  if (contextWindow !== undefined) out.contextWindow = contextWindow;
  if (maxOutput !== undefined) out.maxOutput = maxOutput;
  return out;
}

/** The answer was JSON but not the shape the endpoint documents: not retried, the table serves. */
export function malformedModelInfo(provider: string, model: string, what: string): ProviderError {
  return new ProviderError(`${provider}: the models endpoint's answer for "${model}" is malformed (${what}).`, { kind: 'empty_response', retryable: false, provider });
}

/** The endpoint answered but does not list the model. */
export function unlistedModel(provider: string, model: string): ProviderError {
  return new ProviderError(`${provider}: the models endpoint does not list "${model}".`, { kind: 'not_found', retryable: false, provider, status: 404 });
}

/**
 * Limits from Anthropic's `GET /v1/models/{id}` (`max_input_tokens`, `max_tokens`; null when
 * unknown). Pure; throws a `ProviderError` when `info` is not a model object.
 */
export function limitsFromAnthropicModel(info: unknown, provider: string, model: string): ModelLimits {
  if (!isRecord(info) || typeof info.id !== 'string') throw malformedModelInfo(provider, model, 'not a model object');
  return limits(provider, model, tokens(info.max_input_tokens), tokens(info.max_tokens));
}

/**
 * Limits from one entry of an OpenAI-compatible `GET /models` list, in whichever field the
 * vendor publishes them: OpenRouter `context_length` and `top_provider.max_completion_tokens`
 * (the window of the provider OpenRouter routes to first wins when it is smaller), Mistral
 * `max_context_length`, Groq `context_window` and `max_completion_tokens`, vLLM
 * `max_model_len`. Pure.
 */
export function limitsFromListedModel(entry: Record<string, unknown>, provider: string, model: string): ModelLimits {
  const top = isRecord(entry.top_provider) ? entry.top_provider : {};
  const windows = [tokens(entry.context_length), tokens(top.context_length), tokens(entry.max_context_length), tokens(entry.context_window), tokens(entry.max_model_len)].filter((n): n is number => n !== undefined);
  const window = windows.length > 0 ? Math.min(...windows) : undefined;
  return limits(provider, model, window, tokens(top.max_completion_tokens) ?? tokens(entry.max_completion_tokens) ?? tokens(entry.max_output_tokens));
}

/**
 * The entry of `model` in an OpenAI-compatible `GET /models` answer (`{ data: [...] }`), matched
 * by id, case-insensitively. Pure; throws `ProviderError` for an answer without a `data` list
 * and for a model it does not list.
 */
export function findListedModel(body: unknown, provider: string, model: string): Record<string, unknown> {
  const data = isRecord(body) ? body.data : undefined;
  if (!Array.isArray(data)) throw malformedModelInfo(provider, model, 'no "data" list');
  const wanted = model.toLowerCase();
  const entry = data.find((item): item is Record<string, unknown> => isRecord(item) && typeof item.id === 'string' && item.id.toLowerCase() === wanted);
  if (!entry) throw unlistedModel(provider, model);
  return entry;
}

/**
 * Limits from Gemini's `GET /v1beta/models/{model}` (`inputTokenLimit`, `outputTokenLimit`).
 * Pure; throws a `ProviderError` when `info` is not a model object.
 */
export function limitsFromGeminiModel(info: unknown, provider: string, model: string): ModelLimits {
  if (!isRecord(info) || typeof info.name !== 'string') throw malformedModelInfo(provider, model, 'not a model object');
  return limits(provider, model, tokens(info.inputTokenLimit), tokens(info.outputTokenLimit));
}

/**
 * The native Gemini API root beside the base URL of its OpenAI-compatible endpoint
 * (`…/v1beta/openai/` → `…/v1beta`), where `models.get` and `countTokens` live. Pure.
 */
export function geminiNativeBase(openAIBase: string): string {
  return openAIBase.replace(/\/+$/, '').replace(/\/openai$/, '');
}
