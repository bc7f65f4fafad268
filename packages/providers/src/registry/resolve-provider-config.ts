import { processEnv } from '../process-env.js';
import { DEFAULT_MODELS } from './default-models.js';
import { createCustomProviderSpec, findProviderSpec, normalizeProviderName } from './find-provider-spec.js';
import { isLocalBaseUrl } from './is-local-base-url.js';
import { matchProvider } from './match-provider.js';
import type { MatchRule } from './match-provider.js';
import { modelForProvider } from './model-for-provider.js';
import { ProviderConfigError } from './provider-config-error.js';
import { defineProviderSpec, providerLabel } from './provider-spec.js';
import type { GovernorTarget, ProviderBackend, ProviderSpec } from './provider-spec.js';
import { PROVIDER_SPECS } from './provider-specs.js';
import { checkHttpUrl, parseProvidersConfig, parseProviderSettings } from './providers-config.js';
import type { ProviderSettings } from './providers-config.js';

/** The provider part of a configuration, as a user writes it (`createProvider`, the CLI config file). */
export interface ProviderSelection {
  /**
   * A registry name in any spelling (`deepseek`, `lm-studio`, `lmStudio`), a user-added
   * provider's key, or `openai-responses` (OpenAI through its Responses API). Absent: chosen
   * from the model and what is configured, as the reference does.
   */
  provider?: string;
  model?: string;
  /** Shorthand for the chosen provider's `apiKey` (without `provider`: the provider it belongs to, see `resolveProviderConfig`). */
  apiKey?: string;
  /** Shorthand for the chosen provider's `apiBase`. */
  baseUrl?: string;
  /** Headers added to the chosen provider's. */
  headers?: Record<string, string>;
  /** `{ <name>: { apiKey, apiBase, extraHeaders, … } }` as the reference's config.json has it; other names add custom OpenAI-compatible providers. */
  providers?: Record<string, unknown>;
  /** Where API-key variables are read (default `process.env` where the runtime has one, else none: pass it in browsers and edge functions). */
  env?: Record<string, string | undefined>;
}

/** The resolved choice, before any SDK is loaded (useful to print what will be used). */
export interface ResolvedProviderConfig {
  /** Registry name (`deepseek`), or a user-added provider's key. */
  provider: string;
  /** Human label (`DeepSeek`). */
  displayName: string;
  backend: ProviderBackend;
  /** The model as sent to the API (prefix stripped where the spec says). */
  model: string;
  /** The model as the user named it (or the provider's default). */
  requestedModel: string;
  apiKey?: string;
  /** The endpoint (configured, else the spec's default; absent: the SDK's own default). */
  baseUrl?: string;
  /** Headers for every request: the spec's defaults, then the user's. */
  headers?: Record<string, string>;
  /** The governor target the provider's requests must be legal for. */
  governorTarget: GovernorTarget;
  /** The spec (a user-added provider gets a dynamic one). */
  spec: ProviderSpec;
  /** All configured settings of the provider (region, profile, apiVersion, extraBody, …). */
  settings: ProviderSettings;
  /** Which rule chose it. */
  rule: MatchRule;
}

/** Environment variables holding a provider's base URL (the SDKs read these too). */
export const BASE_URL_ENV: Readonly<Record<string, string>> = Object.freeze({ openai: 'OPENAI_BASE_URL', anthropic: 'ANTHROPIC_BASE_URL' });

/** The attribution headers the reference sends to OpenRouter (its app-ranking headers). */
export const OPENROUTER_ATTRIBUTION_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'HTTP-Referer': 'https://github.com/HKUDS/nanobot',
  'X-OpenRouter-Title': 'nanobot',
  'X-OpenRouter-Categories': 'cli-agent,personal-agent',
});

const RESPONSES_ALIAS = 'openai-responses';

function stringField(selection: ProviderSelection, key: 'provider' | 'model' | 'apiKey' | 'baseUrl'): string | undefined {
  const value: unknown = selection[key];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new ProviderConfigError('malformed', key, `Provider config "${key}" must be a string, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}.`);
  return value;
}

/** Which spec a bare `apiKey` / `baseUrl` belongs to: key prefix, then base-URL keyword, then the model's keywords, else OpenAI. */
function shorthandTarget(specs: readonly ProviderSpec[], apiKey: string | undefined, baseUrl: string | undefined, model: string): ProviderSpec {
  const candidates = specs.filter((spec) => !spec.isOauth && !spec.isTranscriptionOnly);
  const byKey = apiKey ? candidates.find((spec) => spec.detectByKeyPrefix && apiKey.startsWith(spec.detectByKeyPrefix)) : undefined;
  if (byKey) return byKey;
  const byBase = baseUrl ? candidates.find((spec) => spec.detectByBaseKeyword && baseUrl.includes(spec.detectByBaseKeyword)) : undefined;
  if (byBase) return byBase;
  const lower = model.toLowerCase();
  const byModel = candidates.find((spec) => (!spec.isLocal || baseUrl) && spec.keywords.some((kw) => lower.includes(kw) || lower.replace(/-/g, '_').includes(kw.replace(/-/g, '_'))));
  return byModel ?? (specs.find((spec) => spec.name === 'openai') as ProviderSpec);
}

function mergeSettings(base: ProviderSettings | undefined, extra: ProviderSettings): ProviderSettings {
  const merged: ProviderSettings = { ...base, ...extra };
  if (base?.extraHeaders || extra.extraHeaders) merged.extraHeaders = { ...base?.extraHeaders, ...extra.extraHeaders };
  return merged;
}

function envDescription(spec: ProviderSpec): string {
  return spec.envKey && spec.envKeyConfigures ? ` (or the ${spec.envKey} environment variable)` : '';
}

/** Refuses a provider this package cannot serve, or one missing what its backend needs. */
function checkUsable(name: string, spec: ProviderSpec, settings: ProviderSettings, rule: MatchRule): void {
  const field = rule === 'explicit' ? 'provider' : 'model';
  if (spec.isTranscriptionOnly) {
    throw new ProviderConfigError('transcription_only', field, `Provider "${name}" (${providerLabel(spec)}) only transcribes audio; it serves no chat model. Choose another provider.`);
  }
  if (spec.isOauth) {
    throw new ProviderConfigError(
      'oauth_only',
      field,
      `Provider "${name}" (${providerLabel(spec)}) signs in with OAuth through a subscription, not an API key, and @nanobot/providers has no OAuth sign-in. Use an API-key provider instead (${spec.name === 'github_copilot' ? 'openai or anthropic' : spec.name === 'xai_grok' ? 'a custom provider pointed at xAI\'s API' : 'openai'}).`,
    );
  }
  const key = `providers.${name}`;
  if (spec.backend === 'azure_openai') {
    if (!settings.apiBase) throw new ProviderConfigError('missing_base_url', `${key}.apiBase`, `Azure OpenAI needs its resource URL: set ${key}.apiBase (e.g. https://my-resource.openai.azure.com) or AZURE_OPENAI_ENDPOINT.`);
    if (!settings.apiKey) throw new ProviderConfigError('missing_key', `${key}.apiKey`, `Azure OpenAI needs an API key: set ${key}.apiKey or AZURE_OPENAI_API_KEY.`);
    return;
  }
  if (spec.backend === 'bedrock') return; // The AWS SDK's credential chain supplies what is not configured.
  if (spec.isDirect && !spec.defaultApiBase && !settings.apiBase) {
    throw new ProviderConfigError('missing_base_url', `${key}.apiBase`, `Provider "${name}" needs its endpoint: set ${key}.apiBase (an OpenAI-compatible URL such as https://gateway.example.com/v1).`);
  }
  if (!spec.isLocal && !spec.isDirect && !settings.apiKey && !isLocalBaseUrl(settings.apiBase)) {
    throw new ProviderConfigError('missing_key', `${key}.apiKey`, `Provider "${name}" (${providerLabel(spec)}) needs an API key: set ${key}.apiKey${envDescription(spec)}.`);
  }
}

/**
 * Resolves a configuration to one provider without loading any SDK, as the reference's
 * `Config._match_provider` and provider factory do:
 * - settings come from `providers` (config wins) and from each spec's API-key variable
 *   (`DEEPSEEK_API_KEY` configures `deepseek`), plus `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`;
 * - `apiKey` / `baseUrl` / `headers` at the top level configure the named `provider`, or without
 *   one the provider they belong to: the key's prefix (`sk-or-` → OpenRouter), the base URL's
 *   keyword or port (`openrouter`, `11434` → Ollama), the model's keywords, else OpenAI;
 * - the provider is chosen by `matchProvider` (explicit name, `<name>/` prefix, keywords in
 *   registry order, local endpoint, gateways and keys, user-added providers);
 * - `openai`, `openai-responses` and `anthropic` keep their meaning.
 * Throws `ProviderConfigError` (code `CONFIGURATION_ERROR`, naming the field) for an unknown
 * provider, a malformed `providers` section, a provider without its key or endpoint, an
 * OAuth-only or transcription-only provider, or nothing configured. Pure apart from reading `env`.
 */
export function resolveProviderConfig(selection: ProviderSelection = {}, specs: readonly ProviderSpec[] = PROVIDER_SPECS): ResolvedProviderConfig {
  const env = selection.env ?? processEnv();
  const parsed = parseProvidersConfig(selection.providers, specs);
  const builtin = new Map(parsed.builtin);
  const requested = stringField(selection, 'provider');
  const modelGiven = stringField(selection, 'model');
  const topKey = stringField(selection, 'apiKey');
  const topBase = stringField(selection, 'baseUrl');
  if (topBase) checkHttpUrl(topBase, 'baseUrl');
  const topHeaders = selection.headers === undefined ? undefined : parseProviderSettings({ extraHeaders: selection.headers }, 'headers').extraHeaders;

  for (const spec of specs) {
    const fromEnv: ProviderSettings = {};
    const key = spec.envKey && spec.envKeyConfigures ? env[spec.envKey] : undefined;
    if (key) fromEnv.apiKey = key;
    const baseVar = BASE_URL_ENV[spec.name];
    const base = baseVar ? env[baseVar] : undefined;
    if (base) fromEnv.apiBase = checkHttpUrl(base, baseVar);
    if (fromEnv.apiKey || fromEnv.apiBase) builtin.set(spec.name, { ...fromEnv, ...builtin.get(spec.name) });
  }

  const responses = requested !== undefined && normalizeProviderName(requested) === normalizeProviderName(RESPONSES_ALIAS);
  const forced = responses ? 'openai' : requested;
  const shorthand: ProviderSettings = {};
  if (topKey) shorthand.apiKey = topKey;
  if (topBase) shorthand.apiBase = topBase;
  if (topHeaders) shorthand.extraHeaders = topHeaders;
  const custom = parsed.custom.map((entry) => ({ ...entry }));
  if (Object.keys(shorthand).length > 0) {
    const forcedSpec = forced !== undefined ? findProviderSpec(forced, specs) : undefined;
    const forcedCustom = forced !== undefined && !forcedSpec ? custom.find((entry) => normalizeProviderName(entry.key) === normalizeProviderName(forced)) : undefined;
    if (forcedCustom) forcedCustom.settings = mergeSettings(forcedCustom.settings, shorthand);
    else if (forced === undefined || forcedSpec) {
      const target = forcedSpec ?? shorthandTarget(specs, topKey, topBase, modelGiven ?? '');
      builtin.set(target.name, mergeSettings(builtin.get(target.name), shorthand));
    }
  }

  const match = matchProvider({ model: modelGiven ?? '', forced, builtin, custom, specs });
  if (!match) {
    if (forced !== undefined) {
      throw new ProviderConfigError('unknown_provider', 'provider', `Unknown provider "${forced}": use a registry name (\`nanobot providers\` lists them: openai, anthropic, deepseek, gemini, openrouter, ollama, …), "openai-responses", or a provider added under "providers".`);
    }
    const forModel = modelGiven ? ` for model "${modelGiven}"` : '';
    throw new ProviderConfigError(
      'nothing_configured',
      'providers',
      `No model provider configured${forModel}: set an API key variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, …), add { providers: { <name>: { apiKey } } }, or point OPENAI_BASE_URL at a local server.`,
    );
  }

  let settings = match.custom ? match.custom.settings : (builtin.get(match.name) ?? {});
  let spec = match.spec ?? createCustomProviderSpec(match.name, { displayName: settings.displayName, thinkingStyle: settings.thinkingStyle });
  if (responses) spec = defineProviderSpec({ ...spec, backend: 'openai_responses', governorTarget: 'responses' });
  if (spec.backend === 'azure_openai') {
    // The variables the openai SDK's AzureOpenAI client reads itself, used only once Azure is chosen.
    const fromEnv: ProviderSettings = {};
    if (env.AZURE_OPENAI_API_KEY) fromEnv.apiKey = env.AZURE_OPENAI_API_KEY;
    if (env.AZURE_OPENAI_ENDPOINT) fromEnv.apiBase = checkHttpUrl(env.AZURE_OPENAI_ENDPOINT, 'AZURE_OPENAI_ENDPOINT');
    settings = { ...fromEnv, ...settings };
  }
  checkUsable(match.name, spec, settings, match.rule);

  const requestedModel = modelGiven ?? DEFAULT_MODELS[responses ? 'openai_responses' : spec.name];
  if (!requestedModel) {
    throw new ProviderConfigError('no_default_model', 'model', `Provider "${match.name}" (${providerLabel(spec)}) has no default model here: name one with { model } (or --model).`);
  }
  const baseUrl = settings.apiBase || spec.defaultApiBase || undefined;
  const headers: Record<string, string> = Object.fromEntries(spec.defaultExtraHeaders);
  if (spec.name === 'openrouter' || (baseUrl !== undefined && baseUrl.toLowerCase().includes('openrouter'))) Object.assign(headers, OPENROUTER_ATTRIBUTION_HEADERS);
  Object.assign(headers, settings.extraHeaders);
  const resolved: ResolvedProviderConfig = {
    provider: match.name,
    displayName: providerLabel(spec),
    backend: spec.backend,
    model: modelForProvider(spec, requestedModel),
    requestedModel,
    governorTarget: spec.governorTarget,
    spec,
    settings,
    rule: match.rule,
    apiKey: settings.apiKey || undefined,
    baseUrl,
  };
  if (Object.keys(headers).length > 0) resolved.headers = headers;
  return resolved;
}
