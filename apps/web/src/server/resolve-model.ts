import type { ModelFacts, ResolvedProviderConfig } from '@nanobot/providers';
import { ConfigurationError } from '@nanobot/schema';
import type { LLMProvider } from '@nanobot/schema';
import { createOfflineModel, OFFLINE_MODEL_NAME } from './offline-model.js';

/** The model the demo runs and how to describe it. */
export interface ResolvedModel {
  provider: LLMProvider;
  model: string;
  offline: boolean;
  /** The registry's choice (absent for the offline model): provider name, endpoint, backend. */
  resolved?: ResolvedProviderConfig;
  /** Default context window for this model (the budget bar's scale). */
  contextWindowTokens: number;
  /** Tokens reserved for the reply. */
  maxTokens: number;
  /** Whether the window was set (`NANOBOT_CONTEXT_WINDOW`), or is still to be read from the model's facts. */
  windowSet: boolean;
}

/** How the demo chooses its model (flags of the web server; the environment fills the rest). */
export interface ResolveModelOptions {
  offline?: boolean;
  deltaDelayMs?: number;
  /** A registry name (`--provider`), as the CLI's; default `NANOBOT_PROVIDER`, else chosen. */
  provider?: string;
  /** The model (`--model`); default `NANOBOT_MODEL`, else the provider's default. */
  model?: string;
}

/** Offline window: small on purpose, so the demo's prepared session shows snipping. */
export const OFFLINE_CONTEXT_WINDOW = 8192;
/** The window of a real model nothing knows (the CLI's default). */
const FALLBACK_CONTEXT_WINDOW = 65_536;
const DEFAULT_REPLY_TOKENS = 4096;

/**
 * Picks the model as the CLI does, through the same registry resolution
 * (`resolveProviderConfig` of @nanobot/providers): `provider` / `NANOBOT_PROVIDER` and `model` /
 * `NANOBOT_MODEL`, every provider's key variable (`DEEPSEEK_API_KEY`, `GEMINI_API_KEY`, …),
 * `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`. Nothing configured: the offline scripted model.
 * `NANOBOT_CONTEXT_WINDOW` sets the window; otherwise the caller reads it from the model's facts
 * (`modelWindow`). Throws a `ConfigurationError` naming the field for a configuration the
 * registry refuses (an unknown provider, a provider without its key, an OAuth-only one).
 */
export async function resolveModel(env: Record<string, string | undefined>, options: ResolveModelOptions = {}): Promise<ResolvedModel> {
  const window = Number(env.NANOBOT_CONTEXT_WINDOW);
  const windowSet = Number.isInteger(window) && window > 0;
  const name = options.provider ?? (env.NANOBOT_PROVIDER || undefined);
  const offline = (): ResolvedModel => ({
    provider: createOfflineModel(options.deltaDelayMs !== undefined ? { deltaDelayMs: options.deltaDelayMs } : {}),
    model: OFFLINE_MODEL_NAME,
    offline: true,
    contextWindowTokens: windowSet ? window : OFFLINE_CONTEXT_WINDOW,
    maxTokens: 1024,
    windowSet: true,
  });
  if (options.offline || name === 'offline') return offline();
  const { createResolvedProvider, resolveProviderConfig, ProviderConfigError } = await import('@nanobot/providers');
  const modelName = options.model ?? (env.NANOBOT_MODEL || undefined);
  let resolved: ResolvedProviderConfig;
  try {
    resolved = resolveProviderConfig({ ...(name !== undefined ? { provider: name } : {}), ...(modelName !== undefined ? { model: modelName } : {}), env });
  } catch (error) {
    if (error instanceof ProviderConfigError && error.problem === 'nothing_configured' && name === undefined) return offline();
    if (error instanceof ProviderConfigError) {
      const where = error.field === 'provider' ? (options.provider !== undefined ? '--provider' : 'NANOBOT_PROVIDER') : error.field === 'model' ? (options.model !== undefined ? '--model' : 'NANOBOT_MODEL') : error.field;
      throw new ConfigurationError(`${where}: ${error.message}`, { cause: error });
    }
    throw error;
  }
  return {
    provider: await createResolvedProvider(resolved),
    model: resolved.model,
    offline: false,
    resolved,
    contextWindowTokens: windowSet ? window : FALLBACK_CONTEXT_WINDOW,
    maxTokens: DEFAULT_REPLY_TOKENS,
    windowSet,
  };
}

/**
 * The window and reply reserve of a real model whose window was not set, from its facts (its
 * provider's models endpoint, cached in `<sessionsDir>/model-facts.json`, else the model table),
 * with what went wrong as `problem`. Never rejects.
 */
export async function modelWindow(model: ResolvedModel, sessionsDir: string): Promise<{ contextWindowTokens: number; maxTokens: number; facts: ModelFacts | null }> {
  if (model.offline || model.windowSet) return { contextWindowTokens: model.contextWindowTokens, maxTokens: model.maxTokens, facts: null };
  const [{ ModelFactsCache, replyReserveFor }, { JsonModelFactsStore, defaultModelFactsFile }] = await Promise.all([import('@nanobot/providers'), import('@nanobot/runner')]);
  const cache = new ModelFactsCache({
    provider: model.provider,
    store: new JsonModelFactsStore(defaultModelFactsFile(sessionsDir)),
    ...(model.resolved?.baseUrl ? { scope: model.resolved.baseUrl } : {}),
    fallback: { contextWindow: model.contextWindowTokens, maxOutput: model.maxTokens },
  });
  const facts = await cache.lookup(model.model);
  if (facts.contextWindow === undefined) return { contextWindowTokens: model.contextWindowTokens, maxTokens: model.maxTokens, facts };
  return { contextWindowTokens: facts.contextWindow, maxTokens: replyReserveFor(facts.contextWindow, facts.maxOutput), facts };
}
