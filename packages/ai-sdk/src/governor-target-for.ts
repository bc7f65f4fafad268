import type { GovernTarget } from '@nanobot/governor';

/**
 * The governor target for an AI SDK provider id (a language model's `provider`:
 * `google.generative-ai`, `google.vertex.chat`, `amazon-bedrock`, `mistral.chat`,
 * `deepseek.chat`, `openai.chat`, `openai.responses`, `azure.responses`, `anthropic.messages`,
 * `vertex.anthropic.messages`, `openrouter`, …), or undefined for a provider it does not know
 * (the governor's default, `'any'`, then applies). Pure.
 */
export function governorTargetFor(provider: string | undefined | null): GovernTarget | undefined {
  if (typeof provider !== 'string' || provider === '') return undefined;
  const p = provider.toLowerCase();
  if (p.endsWith('.responses')) return 'responses';
  if (p.includes('anthropic')) return 'anthropic';
  if (p.startsWith('amazon-bedrock') || p.startsWith('bedrock')) return 'bedrock';
  if (p.startsWith('google.') || p.startsWith('google-') || p === 'google' || p.startsWith('gemini')) return 'gemini';
  if (p.startsWith('mistral')) return 'mistral';
  if (p.startsWith('deepseek')) return 'deepseek';
  if (p.startsWith('openrouter')) return 'openrouter';
  if (p.startsWith('openai.') || p.startsWith('azure.') || p === 'openai' || p === 'azure') return 'openai';
  return undefined;
}
