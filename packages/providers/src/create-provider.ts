import { ConfigurationError } from '@nanobot/schema';
import type { LLMProvider } from '@nanobot/schema';
import { isMissingPackage, MissingSdkError } from './missing-sdk-error.js';
import type { RetryOptions } from './with-retry.js';

/** Which provider `createProvider` builds. */
export type ProviderKind = 'openai' | 'openai-responses' | 'anthropic';

/** Provider configuration as a user writes it (CLI flags, config file). */
export interface ProviderConfig {
  /**
   * `openai` (Chat Completions, any OpenAI-compatible server), `openai-responses` (OpenAI's
   * Responses API) or `anthropic`; inferred from keys and model when absent (never as
   * `openai-responses`, which is chosen explicitly).
   */
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

const DEFAULT_MODELS: Record<ProviderKind, string> = { openai: 'gpt-4o-mini', 'openai-responses': 'gpt-5-mini', anthropic: 'claude-sonnet-5-5' };

/** A config string field: absent when `undefined` or `""` (as an unset env variable), else a non-empty string. */
function stringField(config: ProviderConfig, key: 'model' | 'apiKey' | 'baseUrl'): string | undefined {
  const value: unknown = config[key];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new ConfigurationError(`Provider config "${key}" must be a string, got ${value === null ? 'null' : typeof value}.`);
  return value;
}

function checkBaseUrl(url: string | undefined, from: string): string | undefined {
  if (url === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new ConfigurationError(`${from} must be an http(s) URL such as http://127.0.0.1:11434/v1, got "${url}".`);
  }
  return url;
}

/**
 * Resolves configuration with environment fallbacks: `OPENAI_API_KEY`, `OPENAI_BASE_URL`,
 * `ANTHROPIC_API_KEY` (and `ANTHROPIC_BASE_URL`, which the Anthropic SDK reads too). Each
 * provider reads only its own variables. Without an explicit `provider`: a `claude…`/`anthropic/…`
 * model or only an Anthropic key picks Anthropic, anything OpenAI-ish (key or base URL) picks
 * OpenAI-compatible. `""` counts as unset. Throws `ConfigurationError` when nothing is
 * configured, or for an unknown provider, a non-string field or a base URL that is not http(s).
 */
export function resolveProviderConfig(config: ProviderConfig = {}): ResolvedProviderConfig {
  const env = config.env ?? process.env;
  const model = stringField(config, 'model');
  const configKey = stringField(config, 'apiKey');
  const configBase = checkBaseUrl(stringField(config, 'baseUrl'), 'baseUrl');
  const openaiKey = env.OPENAI_API_KEY || undefined;
  const openaiBase = env.OPENAI_BASE_URL || undefined;
  const anthropicKey = env.ANTHROPIC_API_KEY || undefined;
  const anthropicBase = env.ANTHROPIC_BASE_URL || undefined;
  let provider = config.provider;
  if (provider === undefined) {
    if (model && /^(claude|anthropic\/)/i.test(model)) provider = 'anthropic';
    else if (configBase || openaiKey || openaiBase) provider = 'openai';
    else if (anthropicKey) provider = 'anthropic';
    else if (configKey) provider = 'openai';
  }
  if (provider === undefined) {
    throw new ConfigurationError('No model provider configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL (for a local OpenAI-compatible server), or pass { provider, apiKey, baseUrl }.');
  }
  if (provider !== 'openai' && provider !== 'openai-responses' && provider !== 'anthropic') {
    throw new ConfigurationError(`Unknown provider "${String(provider)}": use "openai", "openai-responses" or "anthropic".`);
  }
  const openaiFamily = provider !== 'anthropic';
  const apiKey = configKey ?? (openaiFamily ? openaiKey : anthropicKey);
  const baseUrl = configBase ?? checkBaseUrl(openaiFamily ? openaiBase : anthropicBase, openaiFamily ? 'OPENAI_BASE_URL' : 'ANTHROPIC_BASE_URL');
  if (!apiKey && !(openaiFamily && baseUrl)) {
    throw new ConfigurationError(`The ${provider} provider needs an API key (${openaiFamily ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY'} or { apiKey }).`);
  }
  return { provider, model: model ?? DEFAULT_MODELS[provider], apiKey, baseUrl };
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
 * Builds the configured provider. The SDK of the chosen provider is loaded here, lazily, so an
 * app that only ever uses one never loads the other, and needs only that one installed. Throws
 * `ConfigurationError` for bad configuration and `MissingSdkError` (code `MISSING_SDK`, naming
 * the package to install) when the chosen provider's SDK is not installed.
 */
export async function createProvider(config: ProviderConfig = {}): Promise<LLMProvider> {
  const resolved = resolveProviderConfig(config);
  const common = { model: resolved.model, apiKey: resolved.apiKey, baseUrl: resolved.baseUrl, headers: config.headers, retry: config.retry };
  if (resolved.provider === 'anthropic') {
    const { AnthropicProvider } = await loadSdkModule(() => import('./anthropic-provider.js'), '@anthropic-ai/sdk', 'anthropic');
    return new AnthropicProvider(common);
  }
  if (resolved.provider === 'openai-responses') {
    const { OpenAIResponsesProvider } = await loadSdkModule(() => import('./openai-responses-provider.js'), 'openai', 'openai-responses');
    return new OpenAIResponsesProvider(common);
  }
  const { OpenAICompatProvider } = await loadSdkModule(() => import('./openai-compat-provider.js'), 'openai', 'openai');
  return new OpenAICompatProvider(common);
}
