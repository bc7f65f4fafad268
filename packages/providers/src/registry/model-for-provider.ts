import { normalizeProviderName } from './find-provider-spec.js';
import type { ProviderSpec } from './provider-spec.js';

/**
 * The model name as the provider's API must receive it:
 * - the spec's own rules, as the reference applies them: `stripModelPrefix` sends only the last
 *   `/` segment (`anthropic/claude-3` → `claude-3` for AiHubMix), `stripModelPrefixes` removes a
 *   first segment that names one of them (`opencode/x` → `x`); the Anthropic backend drops
 *   `anthropic/`, the Bedrock backend `bedrock/`;
 * - deviation: a direct provider (not a gateway) also loses a prefix naming itself or one of its
 *   keywords, which only chose it (`deepseek/deepseek-chat` → `deepseek-chat`, `azure/my-deployment`
 *   → `my-deployment`): the reference sends it on, and
 *   DeepSeek answers 400 for a model it does not know. Gateways keep `vendor/model` ids whole,
 *   since they route by them (`openrouter/auto` is an OpenRouter model).
 * Pure.
 */
export function modelForProvider(spec: ProviderSpec, model: string): string {
  const slash = model.indexOf('/');
  if (slash < 0) return model;
  const prefix = model.slice(0, slash);
  const rest = model.slice(slash + 1);
  const prefixKey = normalizeProviderName(prefix).toLowerCase();
  if (spec.backend === 'openai_compat' || spec.backend === 'azure_openai' || spec.backend === 'openai_responses') {
    if (spec.stripModelPrefix) return model.slice(model.lastIndexOf('/') + 1);
    if (spec.stripModelPrefixes.some((p) => normalizeProviderName(p).toLowerCase() === prefixKey)) return rest;
  }
  if (spec.backend === 'anthropic' && prefix === 'anthropic') return rest;
  if (spec.backend === 'bedrock' && prefix === 'bedrock') return rest;
  const ownNames = [spec.name, ...spec.keywords.map((k) => normalizeProviderName(k.replace(/[/.]$/, '')).toLowerCase())];
  if (!spec.isGateway && ownNames.includes(prefixKey)) return rest;
  return model;
}
