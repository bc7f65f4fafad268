import { processEnv } from '../process-env.js';
import { DEFAULT_MODELS } from './default-models.js';
import { providerLabel } from './provider-spec.js';
import type { ProviderBackend, ProviderSpec } from './provider-spec.js';
import { PROVIDER_SPECS } from './provider-specs.js';
import { parseProvidersConfig } from './providers-config.js';
import { BASE_URL_ENV, resolveProviderConfig } from './resolve-provider-config.js';
import type { ProviderSelection } from './resolve-provider-config.js';

/** One provider as `nanobot providers` lists it. */
export interface ProviderListing {
  /** Registry name, or a user-added provider's key. */
  name: string;
  displayName: string;
  backend: ProviderBackend;
  /** The environment variable whose key configures it (absent: none does). */
  envKey?: string;
  /** The endpoint it uses (configured, else the spec's default; absent: the SDK's or none). */
  baseUrl?: string;
  /** What configures it now, e.g. `DEEPSEEK_API_KEY`, `config providers.deepseek`; absent: nothing. */
  configuredBy?: string;
  /** The model it runs when none is named (absent: one must be named). */
  defaultModel?: string;
  /** Why it cannot be used here, when it cannot (OAuth sign-in, transcription only). */
  refused?: string;
  kind: 'gateway' | 'local' | 'direct' | 'standard' | 'custom';
}

/** The registry as a user's configuration sees it, and what it would choose. */
export interface ProvidersOverview {
  providers: ProviderListing[];
  /** What a run with this selection would use (absent: nothing is configured, or it is broken). */
  chosen?: { provider: string; model: string; rule: string };
  /** Why nothing could be chosen, when a configuration is broken (not when it is empty). */
  problem?: string;
}

/** Where the SDKs send requests when no base URL is set (shown, so every row names an endpoint). */
const SDK_DEFAULT_BASES: Readonly<Record<string, string>> = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com' };

function kindOf(spec: ProviderSpec): ProviderListing['kind'] {
  if (spec.isGateway) return 'gateway';
  if (spec.isLocal) return 'local';
  if (spec.isDirect) return 'direct';
  return 'standard';
}

/**
 * Every provider of the registry (and the user-added ones of `selection.providers`) with the
 * variable that configures it, its endpoint, whether and by what it is configured now, and what
 * a run with the same selection (its `provider` and `model`, if any) would choose. Throws `ProviderConfigError` for a
 * malformed `providers` section (naming the field). Pure apart from reading `selection.env`.
 */
export function listProviders(selection: ProviderSelection = {}, specs: readonly ProviderSpec[] = PROVIDER_SPECS): ProvidersOverview {
  const env = selection.env ?? processEnv();
  const parsed = parseProvidersConfig(selection.providers, specs);
  const providers: ProviderListing[] = specs.map((spec) => {
    const listing: ProviderListing = { name: spec.name, displayName: providerLabel(spec), backend: spec.backend, kind: kindOf(spec) };
    if (spec.envKey && spec.envKeyConfigures) listing.envKey = spec.envKey;
    const settings = parsed.builtin.get(spec.name);
    const baseVar = BASE_URL_ENV[spec.name];
    const base = settings?.apiBase || (baseVar ? env[baseVar] || undefined : undefined) || spec.defaultApiBase || SDK_DEFAULT_BASES[spec.name];
    if (base) listing.baseUrl = base;
    const by: string[] = [];
    if (listing.envKey && env[listing.envKey]) by.push(listing.envKey);
    if (baseVar && env[baseVar]) by.push(baseVar);
    if (settings && (settings.apiKey || settings.apiBase)) by.push(`config providers.${spec.name}`);
    if (by.length > 0) listing.configuredBy = by.join(', ');
    const model = DEFAULT_MODELS[spec.name];
    if (model) listing.defaultModel = model;
    if (spec.isOauth) listing.refused = 'signs in with OAuth, which this package does not offer';
    else if (spec.isTranscriptionOnly) listing.refused = 'transcription only, no chat model';
    return listing;
  });
  for (const entry of parsed.custom) {
    providers.push({
      name: entry.key,
      displayName: entry.settings.displayName || entry.key,
      backend: 'openai_compat',
      kind: 'custom',
      ...(entry.settings.apiBase ? { baseUrl: entry.settings.apiBase } : {}),
      configuredBy: `config providers.${entry.key}`,
    });
  }
  const overview: ProvidersOverview = { providers };
  try {
    const { provider, model, rule } = resolveProviderConfig({ ...selection, env }, specs);
    overview.chosen = { provider, model, rule };
  } catch (error) {
    const problem = (error as { problem?: unknown }).problem;
    if (problem !== 'nothing_configured') overview.problem = error instanceof Error ? error.message : String(error);
  }
  return overview;
}
