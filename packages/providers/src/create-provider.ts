import { ConfigurationError } from '@nanobot/schema';
import type { LLMProvider } from '@nanobot/schema';
import type { RetryOptions } from './with-retry.js';

/** Which provider `createProvider` builds. */
export type ProviderKind = 'openai' | 'anthropic';

/** Provider configuration as a user writes it (CLI flags, config file). */
export interface ProviderConfig {
  /** `openai` (any OpenAI-compatible server) or `anthropic`; inferred from keys and model when absent. */
  provider?: ProviderKind;
  model?: string;
  apiKey?: string;
  baseUrl?: string;
  headers?: Record<string, string>;
  retry?: RetryOptions;
  /** Where the fallbacks are read (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/** The resolved choice, before any SDK is loaded (useful to print what will be used). */
export interface ResolvedProviderConfig {
  provider: ProviderKind;
  model: string;
  apiKey?: string;
  baseUrl?: string;
}

const DEFAULT_MODELS: Record<ProviderKind, string> = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5' };

/**
 * Resolves configuration with environment fallbacks: `OPENAI_API_KEY`, `OPENAI_BASE_URL`,
 * `ANTHROPIC_API_KEY`. Without an explicit `provider`: a `claude…`/`anthropic/…` model or only an
 * Anthropic key picks Anthropic, anything OpenAI-ish (key or base URL) picks OpenAI-compatible.
 * Throws `ConfigurationError` when nothing is configured.
 */
export function resolveProviderConfig(config: ProviderConfig = {}): ResolvedProviderConfig {
  const env = config.env ?? process.env;
  const openaiKey = env.OPENAI_API_KEY || undefined;
  const openaiBase = env.OPENAI_BASE_URL || undefined;
  const anthropicKey = env.ANTHROPIC_API_KEY || undefined;
  let provider = config.provider;
  if (!provider) {
    if (config.model && /^claude/i.test(config.model)) provider = 'anthropic';
    else if (config.baseUrl || openaiKey || openaiBase) provider = 'openai';
    else if (anthropicKey) provider = 'anthropic';
    else if (config.apiKey) provider = 'openai';
  }
  if (!provider) {
    throw new ConfigurationError('No model provider configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL (for a local OpenAI-compatible server), or pass { provider, apiKey, baseUrl }.');
  }
  if (provider !== 'openai' && provider !== 'anthropic') throw new ConfigurationError(`Unknown provider "${String(provider)}": use "openai" or "anthropic".`);
  const apiKey = config.apiKey ?? (provider === 'openai' ? openaiKey : anthropicKey);
  const baseUrl = config.baseUrl ?? (provider === 'openai' ? openaiBase : undefined);
  if (!apiKey && !(provider === 'openai' && baseUrl)) {
    throw new ConfigurationError(`The ${provider} provider needs an API key (${provider === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY'} or { apiKey }).`);
  }
  return { provider, model: config.model ?? DEFAULT_MODELS[provider], apiKey, baseUrl };
}

/**
 * Builds the configured provider. The SDK of the chosen provider is loaded here, lazily, so an
 * app that only ever uses one never loads the other.
 */
export async function createProvider(config: ProviderConfig = {}): Promise<LLMProvider> {
  const resolved = resolveProviderConfig(config);
  const common = { model: resolved.model, apiKey: resolved.apiKey, baseUrl: resolved.baseUrl, headers: config.headers, retry: config.retry };
  if (resolved.provider === 'anthropic') {
    const { AnthropicProvider } = await import('./anthropic-provider.js');
    return new AnthropicProvider(common);
  }
  const { OpenAICompatProvider } = await import('./openai-compat-provider.js');
  return new OpenAICompatProvider(common);
}
