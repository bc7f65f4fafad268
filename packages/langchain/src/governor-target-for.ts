import type { GovernTarget } from '@nanobot/governor';

/**
 * The governor target for a LangChain chat model, from its class (`_llmType()` and the class
 * name): `ChatAnthropic` → `'anthropic'`, `ChatOpenAI` → `'openai'` (`'responses'` with
 * `useResponsesApi`), `ChatGoogleGenerativeAI` / `ChatVertexAI` → `'gemini'`,
 * `ChatBedrockConverse` → `'bedrock'`, `ChatMistralAI` → `'mistral'`, `ChatDeepSeek` →
 * `'deepseek'`, `ChatOpenRouter` → `'openrouter'`, `AzureChatOpenAI` → `'openai'`; undefined for
 * a model it does not know (the governor's default, `'any'`, then applies). Pure; never throws
 * (a model whose `_llmType` throws is unknown).
 */
export function governorTargetForChatModel(model: unknown): GovernTarget | undefined {
  if (model === null || typeof model !== 'object') return undefined;
  const m = model as { _llmType?: () => unknown; useResponsesApi?: unknown; constructor?: { name?: unknown } };
  let type: string;
  try {
    type = typeof m._llmType === 'function' ? String(m._llmType()) : '';
  } catch {
    type = '';
  }
  const name = `${type} ${typeof m.constructor?.name === 'string' ? m.constructor.name : ''}`.toLowerCase();
  if (name.includes('bedrock')) return 'bedrock';
  if (name.includes('anthropic')) return 'anthropic';
  if (name.includes('googlegenerativeai') || name.includes('google') || name.includes('gemini') || name.includes('vertex')) return 'gemini';
  if (name.includes('mistral')) return 'mistral';
  if (name.includes('deepseek')) return 'deepseek';
  if (name.includes('openrouter')) return 'openrouter';
  if (name.includes('openai') || name.includes('azure')) return m.useResponsesApi === true || name.includes('responses') ? 'responses' : 'openai';
  return undefined;
}
