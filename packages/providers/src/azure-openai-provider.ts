import { AzureOpenAI } from 'openai';
import { envSeconds } from './base-provider.js';
import { OpenAICompatProvider } from './openai-compat-provider.js';
import { sdkClientOptions } from './sdk-client-options.js';
import type { OpenAICompatProviderOptions } from './openai-compat-provider.js';

/** The Azure OpenAI data-plane API version used when none is configured (the reference's). */
export const AZURE_OPENAI_DEFAULT_API_VERSION = '2024-10-21';

/** Options of `AzureOpenAIProvider`. `model` is the deployment name. */
export interface AzureOpenAIProviderOptions extends Omit<OpenAICompatProviderOptions, 'baseUrl' | 'client'> {
  /** The resource URL, e.g. `https://my-resource.openai.azure.com`. */
  endpoint: string;
  /** The `api-version` query parameter (default `2024-10-21`). */
  apiVersion?: string;
  /** Pin every request to this deployment instead of the request's model. */
  deployment?: string;
  /** Microsoft Entra ID instead of a key: returns a bearer token; awaited before each request, may throw. */
  azureADTokenProvider?: () => Promise<string>;
}

/**
 * Azure OpenAI's chat completions through the `openai` SDK's `AzureOpenAI` client: requests go to
 * `/openai/deployments/{deployment}/chat/completions?api-version=…` with the `api-key` header,
 * where the deployment is the model name (or `deployment`). Everything else — message shaping,
 * streaming, retries, error classes — is the OpenAI-compatible provider's.
 */
export class AzureOpenAIProvider extends OpenAICompatProvider {
  constructor(options: AzureOpenAIProviderOptions) {
    const client = new AzureOpenAI({
      endpoint: options.endpoint,
      apiVersion: options.apiVersion ?? AZURE_OPENAI_DEFAULT_API_VERSION,
      ...(options.azureADTokenProvider ? { azureADTokenProvider: options.azureADTokenProvider } : { apiKey: options.apiKey }),
      ...(options.deployment ? { deployment: options.deployment } : {}),
      defaultHeaders: options.headers,
      timeout: options.timeoutMs ?? envSeconds('NANOBOT_OPENAI_COMPAT_TIMEOUT_S', 120_000),
      maxRetries: 0,
      ...sdkClientOptions(options),
    });
    super({ ...options, name: options.name ?? 'azure_openai', client });
  }
}
