import { findProviderSpec, toCamelCase } from './find-provider-spec.js';
import { ProviderConfigError } from './provider-config-error.js';
import type { ProviderSpec, ThinkingStyle } from './provider-spec.js';
import { PROVIDER_SPECS } from './provider-specs.js';

/**
 * One entry of the `providers` section (the reference's `ProviderConfig`): keys may be written
 * camelCase or snake_case (`apiKey` / `api_key`), as in the reference's config.json.
 */
export interface ProviderSettings {
  apiKey?: string;
  /** The endpoint (OpenAI-compatible base including `/v1`, Anthropic root, Azure resource URL, Bedrock endpoint). */
  apiBase?: string;
  /** Headers on every request; they replace the spec's default headers of the same name. */
  extraHeaders?: Record<string, string>;
  /** Request fields merged into every request body (`extra_body`). */
  extraBody?: Record<string, unknown>;
  /** A user-added provider's label. */
  displayName?: string;
  /** How a user-added provider turns thinking on and off. */
  thinkingStyle?: ThinkingStyle;
  /** Amazon Bedrock: the AWS region (default `AWS_REGION` / `AWS_DEFAULT_REGION`). */
  region?: string;
  /** Amazon Bedrock: a shared-config profile for the SDK's credential chain. */
  profile?: string;
  /** Azure OpenAI: the `api-version` query parameter (default `2024-10-21`). */
  apiVersion?: string;
}

/** A user-added provider: its key as written and its settings. */
export interface CustomProviderEntry {
  key: string;
  settings: ProviderSettings;
}

/** The `providers` section, checked: built-in entries by registry name, user-added ones in order. */
export interface ParsedProviders {
  builtin: ReadonlyMap<string, ProviderSettings>;
  custom: readonly CustomProviderEntry[];
}

type FieldKind = 'string' | 'url' | 'headers' | 'object' | 'thinking';

const FIELDS: Readonly<Record<keyof ProviderSettings, FieldKind>> = {
  apiKey: 'string',
  apiBase: 'url',
  extraHeaders: 'headers',
  extraBody: 'object',
  displayName: 'string',
  thinkingStyle: 'thinking',
  region: 'string',
  profile: 'string',
  apiVersion: 'string',
};

const SNAKE_FIELDS: Readonly<Record<string, keyof ProviderSettings>> = {
  api_key: 'apiKey',
  api_base: 'apiBase',
  extra_headers: 'extraHeaders',
  extra_body: 'extraBody',
  display_name: 'displayName',
  thinking_style: 'thinkingStyle',
  api_version: 'apiVersion',
};

const THINKING_STYLES: readonly string[] = ['', 'thinking_type', 'enable_thinking', 'reasoning_split'];

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `"${value}"` : typeof value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An http(s) URL or a `ProviderConfigError` naming `field`. */
export function checkHttpUrl(value: string, field: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new ProviderConfigError('malformed', field, `${field} must be an http(s) URL such as http://127.0.0.1:11434/v1, got "${value}".`);
  }
  return value;
}

function checkField(kind: FieldKind, value: unknown, field: string): unknown {
  switch (kind) {
    case 'string':
    case 'url':
      if (typeof value !== 'string') throw new ProviderConfigError('malformed', field, `${field} must be a string, got ${describe(value)}.`);
      return kind === 'url' && value !== '' ? checkHttpUrl(value, field) : value;
    case 'thinking':
      if (typeof value !== 'string' || !THINKING_STYLES.includes(value)) {
        throw new ProviderConfigError('malformed', field, `${field} must be one of "thinking_type", "enable_thinking", "reasoning_split" (or empty), got ${describe(value)}.`);
      }
      return value;
    case 'headers':
      if (!isPlainObject(value)) throw new ProviderConfigError('malformed', field, `${field} must be an object of header names to strings, got ${describe(value)}.`);
      for (const [name, header] of Object.entries(value)) {
        if (typeof header !== 'string') throw new ProviderConfigError('malformed', `${field}.${name}`, `${field}.${name} must be a string, got ${describe(header)}.`);
      }
      return { ...value };
    case 'object':
      if (!isPlainObject(value)) throw new ProviderConfigError('malformed', field, `${field} must be an object, got ${describe(value)}.`);
      return value;
  }
}

/**
 * One provider's settings from a config value, checked: every field's type, URLs http(s), and
 * no unknown field (a misspelt `apikey` would otherwise leave the key unset without a word).
 * `""` and `null` count as unset, as an unset environment variable. Pure; throws
 * `ProviderConfigError` naming the field.
 */
export function parseProviderSettings(value: unknown, field: string): ProviderSettings {
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value)) throw new ProviderConfigError('malformed', field, `${field} must be an object such as { "apiKey": "…", "apiBase": "…" }, got ${describe(value)}.`);
  const out: Record<string, unknown> = {};
  for (const [rawKey, raw] of Object.entries(value)) {
    const key = SNAKE_FIELDS[rawKey] ?? rawKey;
    const kind = (FIELDS as Record<string, FieldKind | undefined>)[key];
    if (!kind) {
      throw new ProviderConfigError('malformed', `${field}.${rawKey}`, `${field}.${rawKey} is not a provider setting; use ${Object.keys(FIELDS).join(', ')}.`);
    }
    if (raw === null || raw === undefined || raw === '') continue;
    out[key] = checkField(kind, raw, `${field}.${rawKey}`);
  }
  return out as ProviderSettings;
}

/**
 * The `providers` section, checked, as the reference's `ProvidersConfig` reads it: a built-in
 * provider under its name or the camelCase of it (`lm_studio` / `lmStudio`); another spelling of
 * a built-in (`lm-studio`) is refused rather than silently made a second provider; any other key
 * is a user-added OpenAI-compatible provider. Pure; throws `ProviderConfigError` naming the field.
 */
export function parseProvidersConfig(value: unknown, specs: readonly ProviderSpec[] = PROVIDER_SPECS): ParsedProviders {
  const builtin = new Map<string, ProviderSettings>();
  const custom: CustomProviderEntry[] = [];
  if (value === undefined || value === null) return { builtin, custom };
  if (!isPlainObject(value)) {
    throw new ProviderConfigError('malformed', 'providers', `providers must be an object of provider names to settings, e.g. { "deepseek": { "apiKey": "…" } }, got ${describe(value)}.`);
  }
  for (const [key, raw] of Object.entries(value)) {
    const field = `providers.${key}`;
    const exact = specs.find((spec) => spec.name === key || toCamelCase(spec.name) === key);
    if (exact) {
      if (builtin.has(exact.name)) throw new ProviderConfigError('malformed', field, `${field} configures ${exact.name} a second time; keep one entry.`);
      builtin.set(exact.name, parseProviderSettings(raw, field));
      continue;
    }
    const spelled = findProviderSpec(key, specs);
    if (spelled) {
      throw new ProviderConfigError('malformed', field, `${field} conflicts with the built-in provider "${spelled.name}"; write it as "${spelled.name}" (or "${toCamelCase(spelled.name)}"), or choose another name for a custom provider.`);
    }
    custom.push({ key, settings: parseProviderSettings(raw, field) });
  }
  return { builtin, custom };
}
