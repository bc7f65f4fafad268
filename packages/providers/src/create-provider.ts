import type { LLMProvider } from '@nanobot/schema';
import { isMissingPackage, MissingSdkError } from './missing-sdk-error.js';
import { ProviderConfigError } from './registry/provider-config-error.js';
import { resolveProviderConfig } from './registry/resolve-provider-config.js';
import type { ProviderSelection, ResolvedProviderConfig } from './registry/resolve-provider-config.js';
import { sdkClientOptions } from './sdk-client-options.js';
import type { SdkClientOptions } from './sdk-client-options.js';
import type { RetryOptions } from './with-retry.js';

export { resolveProviderConfig };
export type { ResolvedProviderConfig };

/** The three names the package knew before the registry; they keep their meaning. */
export type ProviderKind = 'openai' | 'openai-responses' | 'anthropic';

/**
 * Provider configuration as a user writes it (CLI flags, config file): the selection plus our
 * retry policy, and for Workers, pages and tests the SDK client's `fetch` and browser opt-in.
 */
export interface ProviderConfig extends ProviderSelection, SdkClientOptions {
  retry?: RetryOptions;
}

async function loadSdkModule<T>(load: () => Promise<T>, packageName: string, provider: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissingPackage(error, packageName)) throw new MissingSdkError(packageName, provider, { cause: error });
    throw error;
  }
}

/**
 * Builds the provider `resolveProviderConfig` chooses, through its backend: OpenAI-compatible
 * (with the spec's request quirks and message fields), OpenAI Responses, Anthropic (custom bases
 * such as Kimi Coding and MiniMax), Azure OpenAI or Amazon Bedrock. The backend's SDK is loaded
 * here, lazily, so an app needs only the SDK it uses installed. Throws `ProviderConfigError`
 * (code `CONFIGURATION_ERROR`) for bad configuration and `MissingSdkError` (code `MISSING_SDK`,
 * naming the package to install) when the backend's SDK is not installed.
 */
export async function createProvider(config: ProviderConfig = {}): Promise<LLMProvider> {
  const resolved = resolveProviderConfig(config);
  return createResolvedProvider(resolved, config.retry, sdkClientOptions(config));
}

/**
 * Builds the provider of an already resolved configuration (see `createProvider`); `client` goes
 * to the OpenAI and Anthropic SDK clients (Bedrock's has its own request handler).
 */
export async function createResolvedProvider(resolved: ResolvedProviderConfig, retry?: RetryOptions, client: SdkClientOptions = {}): Promise<LLMProvider> {
  const governorTarget = resolved.spec.governorTarget;
  const common = { model: resolved.model, apiKey: resolved.apiKey, baseUrl: resolved.baseUrl, headers: resolved.headers, retry, name: resolved.provider, governorTarget, ...sdkClientOptions(client) };
  switch (resolved.backend) {
    case 'anthropic': {
      const { AnthropicProvider } = await loadSdkModule(() => import('./anthropic-provider.js'), '@anthropic-ai/sdk', resolved.provider);
      return new AnthropicProvider({ ...common, publishesModelLimits: resolved.spec.modelLimitsSource === 'anthropic' });
    }
    case 'openai_responses': {
      const { OpenAIResponsesProvider } = await loadSdkModule(() => import('./openai-responses-provider.js'), 'openai', 'openai-responses');
      return new OpenAIResponsesProvider({ ...common, name: 'openai-responses', governorTarget: 'responses' });
    }
    case 'azure_openai': {
      const { AzureOpenAIProvider } = await loadSdkModule(() => import('./azure-openai-provider.js'), 'openai', resolved.provider);
      return new AzureOpenAIProvider({ ...common, endpoint: resolved.baseUrl as string, apiVersion: resolved.settings.apiVersion });
    }
    case 'bedrock': {
      const { BedrockProvider } = await loadSdkModule(() => import('./bedrock/bedrock-provider.js'), '@aws-sdk/client-bedrock-runtime', resolved.provider);
      return new BedrockProvider({ model: resolved.model, retry, name: resolved.provider, apiKey: resolved.apiKey, endpoint: resolved.settings.apiBase, region: resolved.settings.region, profile: resolved.settings.profile, additionalModelRequestFields: resolved.settings.extraBody, governorTarget });
    }
    case 'openai_compat': {
      const { OpenAICompatProvider } = await loadSdkModule(() => import('./openai-compat-provider.js'), 'openai', resolved.provider);
      return new OpenAICompatProvider({ ...common, spec: resolved.spec, extraBody: resolved.settings.extraBody });
    }
    default:
      throw new ProviderConfigError('oauth_only', 'provider', `Provider "${resolved.provider}" uses the ${resolved.backend} backend, which @nanobot/providers does not offer.`);
  }
}
