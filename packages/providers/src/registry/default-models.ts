/**
 * The model used when none is named, per provider: only ids the provider serves today (checked
 * against each provider's model pages and deprecation notices: DeepSeek retires `deepseek-chat`,
 * Google `gemini-2.5-flash`), each one the model table of @nanobot/schema knows (a test checks
 * that). A provider missing here needs a model named.
 */
export const DEFAULT_MODELS: Readonly<Record<string, string>> = Object.freeze({
  openai: 'gpt-5.4-mini',
  openai_responses: 'gpt-5.4-mini',
  anthropic: 'claude-sonnet-4-6',
  openrouter: 'openrouter/auto',
  deepseek: 'deepseek-v4-flash',
  gemini: 'gemini-3-flash-preview',
  mistral: 'mistral-large-latest',
});
