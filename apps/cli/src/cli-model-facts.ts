import type { ModelFacts, ModelFactsSource } from '@nanobot/providers';
import type { EventSink } from '@nanobot/runner';
import type { LLMProvider } from '@nanobot/schema';
import type { CliSettings } from './resolve-settings.js';

/**
 * The model facts of a CLI invocation whose window the user left to the model: the provider's
 * models endpoint (where it publishes limits), cached in memory and in
 * `<sessionsDir>/model-facts.json` for a day, the model table otherwise. `null` when the user
 * set a window or the offline model answers.
 */
export async function openModelFacts(settings: CliSettings, provider: LLMProvider): Promise<ModelFactsSource | null> {
  if (!settings.windowFromModel || settings.model.kind !== 'remote') return null;
  const [{ ModelFactsCache }, { JsonModelFactsStore, defaultModelFactsFile }] = await Promise.all([import('@nanobot/providers'), import('@nanobot/runner')]);
  return new ModelFactsCache({
    provider,
    store: new JsonModelFactsStore(defaultModelFactsFile(settings.sessionsDir)),
    // Two endpoints under one provider name (a proxy, a local server) keep apart.
    ...(settings.model.baseUrl ? { scope: settings.model.baseUrl } : {}),
    // A model nothing knows (a local one) keeps the CLI's default window and reply size.
    fallback: { contextWindow: settings.contextWindowTokens, maxOutput: settings.maxTokens ?? 4096 },
  });
}

/** The one line a facts problem is told in (`model facts for <model>: …`). */
export function modelFactsNotice(facts: Pick<ModelFacts, 'model' | 'problem'>): string | null {
  return facts.problem ? `model facts for ${facts.model}: ${facts.problem}` : null;
}

/**
 * An event sink telling each distinct model-facts problem once per process through `notice`
 * (a failing endpoint would otherwise say the same every turn). `notice` is called
 * synchronously and must not throw.
 */
export function modelFactsNotices(notice: (line: string) => void): EventSink {
  const told = new Set<string>();
  return (event) => {
    if (event.type !== 'model_facts') return;
    const line = modelFactsNotice(event);
    if (line === null || told.has(line)) return;
    told.add(line);
    notice(line);
  };
}
