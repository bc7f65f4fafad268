import { createProvider, resolveProviderConfig } from '@nanobot/providers';
import type { LLMProvider } from '@nanobot/schema';
import { createOfflineModel, OFFLINE_MODEL_NAME } from './offline-model.js';

/** The model the demo runs and how to describe it. */
export interface ResolvedModel {
  provider: LLMProvider;
  model: string;
  offline: boolean;
  /** Default context window for this model (the budget bar's scale). */
  contextWindowTokens: number;
  /** Tokens reserved for the reply. */
  maxTokens: number;
}

/** Offline window: small on purpose, so the demo's prepared session shows snipping. */
export const OFFLINE_CONTEXT_WINDOW = 8192;
const REAL_CONTEXT_WINDOW = 128_000;

/**
 * Picks the model as the CLI does: a real one when `OPENAI_API_KEY`, `OPENAI_BASE_URL` or
 * `ANTHROPIC_API_KEY` is set (model from `NANOBOT_MODEL`), otherwise the offline scripted
 * model. `NANOBOT_CONTEXT_WINDOW` overrides the window. Throws a `ConfigurationError` for a
 * configuration the providers package refuses (e.g. an Anthropic model with only an OpenAI key).
 */
export async function resolveModel(env: Record<string, string | undefined>, options: { offline?: boolean; deltaDelayMs?: number } = {}): Promise<ResolvedModel> {
  const window = Number(env.NANOBOT_CONTEXT_WINDOW);
  const configured = Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL || env.ANTHROPIC_API_KEY);
  if (!configured || options.offline) {
    return {
      provider: createOfflineModel(options.deltaDelayMs !== undefined ? { deltaDelayMs: options.deltaDelayMs } : {}),
      model: OFFLINE_MODEL_NAME,
      offline: true,
      contextWindowTokens: Number.isInteger(window) && window > 0 ? window : OFFLINE_CONTEXT_WINDOW,
      maxTokens: 1024,
    };
  }
  const config = { env, ...(env.NANOBOT_MODEL ? { model: env.NANOBOT_MODEL } : {}) };
  const resolved = resolveProviderConfig(config);
  return {
    provider: await createProvider(config),
    model: resolved.model,
    offline: false,
    contextWindowTokens: Number.isInteger(window) && window > 0 ? window : REAL_CONTEXT_WINDOW,
    maxTokens: 4096,
  };
}
