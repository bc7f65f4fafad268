import { findProviderSpec } from './find-provider-spec.js';
import { isLocalBaseUrl } from './is-local-base-url.js';
import type { ProviderSpec } from './provider-spec.js';
import { PROVIDER_SPECS } from './provider-specs.js';
import type { CustomProviderEntry, ProviderSettings } from './providers-config.js';

/** Which rule chose the provider (shown by `nanobot providers` and in errors). */
export type MatchRule = 'explicit' | 'prefix' | 'custom_prefix' | 'keyword' | 'local_base' | 'local' | 'fallback' | 'custom_fallback';

/** What `matchProvider` decides on. */
export interface ProviderMatchInput {
  /** The model as the user wrote it (`''`: none named). */
  model: string;
  /** A provider named explicitly (`--provider`, `provider` in config): chosen as it is. */
  forced?: string;
  /** Settings of the built-in providers by registry name (config and environment merged). */
  builtin: ReadonlyMap<string, ProviderSettings>;
  /** User-added providers, in config order. */
  custom: readonly CustomProviderEntry[];
  specs?: readonly ProviderSpec[];
}

/** The chosen provider: a built-in `spec` or a user-added `custom` entry, and the rule that chose it. */
export interface ProviderMatch {
  name: string;
  spec?: ProviderSpec;
  custom?: CustomProviderEntry;
  rule: MatchRule;
}

const NO_SETTINGS: ProviderSettings = Object.freeze({});

/**
 * Whether the provider can be used as configured, as the reference judges it: OAuth, local and
 * direct providers need no key, the others need one. Deviation: a provider whose configured base
 * URL is on this machine or a private network needs no key either (a local server accepts any),
 * so `OPENAI_BASE_URL=http://127.0.0.1:11434/v1` alone keeps working as before the registry.
 */
function usable(spec: ProviderSpec, settings: ProviderSettings): boolean {
  return spec.isOauth || spec.isLocal || spec.isDirect || Boolean(settings.apiKey) || isLocalBaseUrl(settings.apiBase);
}

function customByName(custom: readonly CustomProviderEntry[], name: string): CustomProviderEntry | undefined {
  const wanted = name.replace(/-/g, '_').toLowerCase();
  return custom.find((entry) => entry.key.replace(/-/g, '_').toLowerCase() === wanted);
}

/**
 * Chooses the provider for `model`, exactly as the reference's `Config._match_provider`
 * (nanobot/config/schema.py at 3852956a), in its order:
 * 1. a provider named explicitly wins whatever it holds;
 * 2. a `<provider>/` model prefix naming a usable built-in, then one naming a user-added provider;
 * 3. model keywords, in registry order, of usable providers (a local provider only when its base
 *    URL is configured and the model has no other provider's prefix);
 * 4. a configured local endpoint, preferring the one whose base URL has its port or keyword
 *    (`11434` → Ollama);
 * 5. the first provider with a key, in registry order (gateways come first), never an OAuth one;
 * 6. the first user-added provider with a base URL.
 * Transcription-only providers never serve chat. Pure; `undefined` when nothing fits.
 */
export function matchProvider(input: ProviderMatchInput): ProviderMatch | undefined {
  const specs = input.specs ?? PROVIDER_SPECS;
  const settingsOf = (spec: ProviderSpec): ProviderSettings => input.builtin.get(spec.name) ?? NO_SETTINGS;

  if (input.forced !== undefined) {
    const spec = findProviderSpec(input.forced, specs);
    if (spec) return { name: spec.name, spec, rule: 'explicit' };
    const custom = customByName(input.custom, input.forced);
    return custom ? { name: custom.key, custom, rule: 'explicit' } : undefined;
  }

  const modelLower = input.model.toLowerCase();
  const modelNormalized = modelLower.replace(/-/g, '_');
  const slash = modelLower.indexOf('/');
  const modelPrefix = slash >= 0 ? modelLower.slice(0, slash) : '';
  const normalizedPrefix = modelPrefix.replace(/-/g, '_');
  const prefixed = modelPrefix ? findProviderSpec(modelPrefix, specs) : undefined;
  const keywordMatches = (keyword: string): boolean => {
    const kw = keyword.toLowerCase();
    return modelLower.includes(kw) || modelNormalized.includes(kw.replace(/-/g, '_'));
  };

  if (modelPrefix) {
    for (const spec of specs) {
      if (spec.isTranscriptionOnly || normalizedPrefix !== spec.name) continue;
      if (usable(spec, settingsOf(spec))) return { name: spec.name, spec, rule: 'prefix' };
    }
    // A named user-added provider is returned even without its base URL, so a malformed explicit
    // prefix fails loudly instead of falling through to another provider.
    const custom = customByName(input.custom, normalizedPrefix);
    if (custom) return { name: custom.key, custom, rule: 'custom_prefix' };
  }

  for (const spec of specs) {
    if (spec.isTranscriptionOnly || !spec.keywords.some(keywordMatches)) continue;
    const settings = settingsOf(spec);
    // Local model-family keywords ("nemotron") also name cloud-hosted models: honour them only
    // for a configured local endpoint, and never for a model another provider's prefix claims.
    if (spec.isLocal && (!settings.apiBase || (prefixed !== undefined && prefixed.name !== spec.name))) continue;
    if (usable(spec, settings)) return { name: spec.name, spec, rule: 'keyword' };
  }

  if (prefixed === undefined) {
    let firstLocal: ProviderSpec | undefined;
    for (const spec of specs) {
      if (!spec.isLocal) continue;
      const base = settingsOf(spec).apiBase;
      if (!base) continue;
      if (spec.detectByBaseKeyword && base.includes(spec.detectByBaseKeyword)) return { name: spec.name, spec, rule: 'local_base' };
      firstLocal ??= spec;
    }
    if (firstLocal) return { name: firstLocal.name, spec: firstLocal, rule: 'local' };
  }

  for (const spec of specs) {
    if (spec.isOauth || spec.isTranscriptionOnly) continue;
    const settings = settingsOf(spec);
    if (settings.apiKey || isLocalBaseUrl(settings.apiBase)) return { name: spec.name, spec, rule: 'fallback' };
  }

  const custom = input.custom.find((entry) => entry.settings.apiBase);
  return custom ? { name: custom.key, custom, rule: 'custom_fallback' } : undefined;
}
