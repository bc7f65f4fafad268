import { defineProviderSpec, titleCase } from './provider-spec.js';
import type { ProviderSpec, ThinkingStyle } from './provider-spec.js';
import { PROVIDER_SPECS } from './provider-specs.js';

/**
 * camelCase, PascalCase or kebab-case → snake_case, exactly as pydantic's `to_snake` (which the
 * reference uses for provider names): `lmStudio` → `lm_studio`, `open-router` → `open_router`,
 * `gpt4` → `gpt_4`. Pure.
 */
export function toSnakeCase(name: string): string {
  return name
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .replace(/([0-9])([A-Z])/g, '$1_$2')
    .replace(/([a-z])([0-9])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
}

/** snake_case → camelCase as pydantic's `to_camel` (the config file's spelling of a key). Pure. */
export function toCamelCase(name: string): string {
  if (/^[a-z]+[A-Za-z0-9]*$/.test(name) && !/\d[a-z]/.test(name)) return name;
  const pascal = titleCase(name).replace(/([0-9A-Za-z])_(?=[0-9A-Z])/g, '$1');
  return pascal.replace(/^(_*[A-Z])/, (m) => m.toLowerCase());
}

/** The registry name a user's spelling stands for (`lm-studio`, `lmStudio` → `lm_studio`). Pure. */
export function normalizeProviderName(name: string): string {
  return toSnakeCase(name.replace(/-/g, '_'));
}

/**
 * The spec named `name` in any spelling the reference accepts (`lm-studio`, `lmStudio`,
 * `lm_studio`), or `undefined`. Pure.
 */
export function findProviderSpec(name: string, specs: readonly ProviderSpec[] = PROVIDER_SPECS): ProviderSpec | undefined {
  const normalized = normalizeProviderName(name);
  return specs.find((spec) => spec.name === normalized);
}

/** Options of `createCustomProviderSpec`. */
export interface CustomProviderSpecOptions {
  displayName?: string;
  thinkingStyle?: ThinkingStyle;
}

/**
 * The spec of a provider the user adds in config (`providers.companyProxy`): an
 * OpenAI-compatible endpoint the user supplies whole, whose own name as a model prefix
 * (`companyProxy/gpt-4`) is removed before sending, as the reference's dynamic specs. Pure.
 */
export function createCustomProviderSpec(name: string, options: CustomProviderSpecOptions = {}): ProviderSpec {
  const normalized = normalizeProviderName(name);
  return defineProviderSpec({
    name: normalized,
    keywords: [],
    envKey: '',
    displayName: options.displayName || titleCase(name.replace(/[-_]/g, ' ')),
    isDirect: true,
    stripModelPrefixes: [...new Set([name, normalized])],
    thinkingStyle: options.thinkingStyle ?? '',
    governorTarget: 'openai',
  });
}
