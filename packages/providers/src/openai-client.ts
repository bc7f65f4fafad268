import OpenAI from 'openai';
import { envSeconds } from './base-provider.js';
import { sdkClientOptions } from './sdk-client-options.js';
import type { SdkClientOptions } from './sdk-client-options.js';

/** How both OpenAI providers reach the API. */
export interface OpenAIClientOptions extends SdkClientOptions {
  apiKey?: string;
  baseUrl?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** A ready client wins over everything else. */
  client?: OpenAI;
}

/**
 * The `openai` client both OpenAI providers use: a local server accepts any key (`not-needed`
 * when only a base URL is set), the timeout defaults to `NANOBOT_OPENAI_COMPAT_TIMEOUT_S` (120 s),
 * and the SDK's own retries are off — our policy owns retrying, SDK retries would multiply every
 * attempt by three.
 */
export function openAIClient(options: OpenAIClientOptions): OpenAI {
  return (
    options.client ??
    new OpenAI({
      apiKey: options.apiKey ?? (options.baseUrl ? 'not-needed' : undefined),
      baseURL: options.baseUrl,
      defaultHeaders: options.headers,
      timeout: options.timeoutMs ?? envSeconds('NANOBOT_OPENAI_COMPAT_TIMEOUT_S', 120_000),
      maxRetries: 0,
      ...sdkClientOptions(options),
    })
  );
}
