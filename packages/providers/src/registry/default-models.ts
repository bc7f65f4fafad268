/**
 * The model used when none is named, per provider: only ids the provider serves today (checked
 * against each provider's model list; a provider missing here needs a model named).
 */
export const DEFAULT_MODELS: Readonly<Record<string, string>> = Object.freeze({
  openai: 'gpt-4o-mini',
  openai_responses: 'gpt-5-mini',
  anthropic: 'claude-sonnet-4-6',
  openrouter: 'openrouter/auto',
  deepseek: 'deepseek-chat',
  gemini: 'gemini-2.5-flash',
  mistral: 'mistral-large-latest',
});
