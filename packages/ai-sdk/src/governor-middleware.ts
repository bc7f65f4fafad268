import { govern, type GovernOptions, type GovernReport } from '@nanobot/governor';
import type { ToolDefinition } from '@nanobot/schema';
// `ai` 7 ships ES modules only: with `resolution-mode` the CommonJS declarations (`.d.cts`) can
// still name its types under `module: node16` (TS1479 otherwise); ai 6 resolves the same way.
// scripts/build-package.mjs keeps such imports `import type` in the declarations.
import type { LanguageModelMiddleware } from 'ai' with { 'resolution-mode': 'import' };
import type { AiMessage } from './internal/ai-message.js';
import { fromGovernorView } from './internal/from-governor-messages.js';
import { toGovernorView, type PreviousView } from './internal/to-governor-messages.js';

type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>;
/** The call options a language-model middleware sees (`LanguageModelV3CallOptions`). */
export type GovernedCallOptions = Awaited<ReturnType<TransformParams>>;
/** The provider-level prompt of one model call (`LanguageModelV3Prompt`). */
export type GovernedPrompt = GovernedCallOptions['prompt'];

/** Options of {@link governorMiddleware}. */
export interface GovernorMiddlewareOptions extends GovernOptions {
  /**
   * Called with each call's report and governed prompt, synchronously, before the model call;
   * not awaited. It must not mutate the prompt; if it throws, the model call fails with that error.
   */
  onReport?: (report: GovernReport, prompt: GovernedPrompt) => void;
}

function toolDefinitions(tools: GovernedCallOptions['tools']): ToolDefinition[] | null {
  if (tools === undefined || tools.length === 0) return null;
  return tools.map((t) =>
    t.type === 'function'
      ? { type: 'function', function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema as Record<string, unknown> } }
      : { type: 'function', function: { name: t.name, description: `provider tool ${t.id}`, parameters: { type: 'object', properties: {} } } },
  );
}

/**
 * A language-model middleware (for `wrapLanguageModel`) that runs the governor on the prompt of
 * every model call, steps of a multi-step `generateText` / `streamText` included: each call's
 * prompt is legal and, with `contextWindowTokens`, fits the window with the call's tools and
 * `maxOutputTokens` reserved (the call's own values unless the options set them). Everything
 * the governor leaves alone reaches the model as the SDK built it. Throws `ValidationError`
 * (from `@nanobot/schema`) at creation for bad options.
 */
export function governorMiddleware(options: GovernorMiddlewareOptions = {}): LanguageModelMiddleware {
  const { onReport, ...governOptions } = options;
  // Fail at creation, not on the first call, for options govern would refuse.
  govern([], governOptions);
  // The SDK builds each call's prompt anew; the last one lets equal messages keep their view.
  let previous: PreviousView | undefined;
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => {
      const view = toGovernorView(params.prompt, 'governorMiddleware', previous);
      previous = { source: params.prompt, view };
      const callOptions: GovernOptions = { ...governOptions };
      if (callOptions.tools === undefined) callOptions.tools = toolDefinitions(params.tools);
      if (callOptions.maxOutputTokens === undefined && params.maxOutputTokens !== undefined) callOptions.maxOutputTokens = params.maxOutputTokens;
      const { messages, report } = govern(view.messages, callOptions);
      const prompt = fromGovernorView(params.prompt as readonly unknown[] as readonly AiMessage[], view, messages, 'v3-prompt') as unknown[] as GovernedPrompt;
      onReport?.(report, prompt);
      return prompt === params.prompt ? params : { ...params, prompt };
    },
  };
}
