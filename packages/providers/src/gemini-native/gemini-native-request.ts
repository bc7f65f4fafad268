import { toProviderError } from '../classify-error.js';
import { malformedModelInfo } from '../model-limits/published-limits.js';
import type { SdkClientOptions } from '../sdk-client-options.js';

/** How to reach the native Gemini API (`models.get`, `countTokens`) beside the OpenAI-compatible endpoint. */
export interface GeminiNativeTarget {
  /** The native root, e.g. `https://generativelanguage.googleapis.com/v1beta`. */
  base: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Reported in errors. */
  provider: string;
  /** The provider's `fetch` option (default the runtime's global fetch). */
  fetch?: SdkClientOptions['fetch'];
}

/**
 * One call to the native Gemini API with the same key the OpenAI-compatible endpoint takes
 * (`x-goog-api-key`). Resolves with the parsed JSON; rejects with a `ProviderError` classified
 * like an SDK error (status, Google's `error.status`), a `ProviderAbortError` when `signal`
 * aborts, and a non-retryable `ProviderError` for an answer that is not JSON.
 */
export async function geminiNativeRequest(target: GeminiNativeTarget, path: string, init: { body?: unknown; signal?: AbortSignal; model: string }): Promise<unknown> {
  const headers: Record<string, string> = { ...target.headers };
  if (target.apiKey) headers['x-goog-api-key'] = target.apiKey;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  let text: string;
  try {
    response = await (target.fetch ?? fetch)(`${target.base}${path}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    text = await response.text();
  } catch (error) {
    throw toProviderError(error, target.provider, init.signal);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (response.ok) throw malformedModelInfo(target.provider, init.model, 'not JSON');
    parsed = undefined;
  }
  if (!response.ok) {
    // Google's body: { error: { code, message, status: 'NOT_FOUND' } }; the status name is the API type.
    const inner = parsed !== null && typeof parsed === 'object' ? (parsed as { error?: { message?: unknown; status?: unknown } }).error : undefined;
    const message = typeof inner?.message === 'string' ? inner.message : text.slice(0, 200) || response.statusText;
    const type = typeof inner?.status === 'string' ? inner.status.toLowerCase() : undefined;
    throw toProviderError({ status: response.status, headers: response.headers, error: { message, ...(type ? { type } : {}) }, message }, target.provider, init.signal);
  }
  return parsed;
}
