import { aiSdkToolTraits } from './tool-traits.js';
import { createGovernor, type GovernOptions, type GovernReport, type Governor } from '@nanobot/governor';
import { dialectMemoOf } from '@nanobot/governor/dialect';
import type { ToolDefinition, ToolTraitsByName } from '@nanobot/schema';
import { ValidationError } from '@nanobot/schema';
// `ai` 7 ships ES modules only: with `resolution-mode` the CommonJS declarations (`.d.cts`) can
// still name its types under `module: node16` (TS1479 otherwise); ai 6 resolves the same way.
// scripts/build-package.mjs keeps such imports `import type` in the declarations.
import type { LanguageModelMiddleware } from 'ai' with { 'resolution-mode': 'import' };
import type { AiMessage } from './internal/ai-message.js';
import { fromGovernorView } from './internal/from-governor-messages.js';
import { convertToGovernorView, recordPrompt, type PreviousView } from './internal/to-governor-messages.js';
import { governorTargetFor } from './governor-target-for.js';

type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>;
/** The call options a language-model middleware sees (`LanguageModelV3CallOptions`). */
export type GovernedCallOptions = Awaited<ReturnType<TransformParams>>;
/** The provider-level prompt of one model call (`LanguageModelV3Prompt`). */
export type GovernedPrompt = GovernedCallOptions['prompt'];

/** Options of {@link governorMiddleware}. */
export interface GovernorMiddlewareOptions extends Omit<GovernOptions, 'sessionKey'> {
  /**
   * Which conversation a call belongs to (its cut plan, compacted ids and memos are kept per
   * conversation): a fixed key, or a function of the call (called synchronously; must not throw
   * or mutate the call). A call's `providerOptions.nanobot.sessionKey` wins; without any key the
   * conversation is recognised by its opening messages. The key also names the offload bucket.
   */
  sessionKey?: string | ((call: GovernedCallOptions) => string | undefined) | null;
  /**
   * Called with each call's report and governed prompt, synchronously, before the model call;
   * not awaited. It must not mutate the prompt; if it throws, the model call fails with that error.
   */
  onReport?: (report: GovernReport, prompt: GovernedPrompt) => void;
  /** The Governor to use (shared with your own calls); default: one of this middleware's own. */
  governor?: Governor;
}

function toolDefinitions(tools: GovernedCallOptions['tools']): ToolDefinition[] | null {
  if (tools === undefined || tools.length === 0) return null;
  return tools.map((t) =>
    t.type === 'function'
      ? { type: 'function', function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema as Record<string, unknown> } }
      : { type: 'function', function: { name: t.name, description: `provider tool ${t.id}`, parameters: { type: 'object', properties: {} } } },
  );
}

/** The call's own key (`providerOptions.nanobot.sessionKey`), if it names one. */
function callKey(params: GovernedCallOptions): string | undefined {
  const own = (params.providerOptions as { nanobot?: { sessionKey?: unknown } } | undefined)?.nanobot?.sessionKey;
  return typeof own === 'string' && own.length > 0 ? own : undefined;
}

/** Earlier prompts kept to recognise a rebuilt one (per conversation, the most recent first). */
const PREVIOUS_KEPT = 16;

/**
 * A language-model middleware (for `wrapLanguageModel`) that runs the governor on the prompt of
 * every model call, steps of a multi-step `generateText` / `streamText` included: each call's
 * prompt is legal and, with `contextWindowTokens`, fits the window with the call's tools and
 * `maxOutputTokens` reserved (the call's own values unless the options set them). It keeps a
 * Governor, so each conversation's cut plan and compacted ids carry from call to call (stable
 * cuts: the provider's prompt cache keeps hitting) and a prompt the SDK rebuilt resumes the
 * previous call's work. Everything the governor leaves alone reaches the model as the SDK built
 * it. Without `target`, each call is made legal for the wrapped model's provider (its
 * `provider` id: `google.generative-ai` → `'gemini'`, `mistral.chat` → `'mistral'`, …; see
 * {@link governorTargetFor}); an unknown provider gets the governor's default. Throws `ValidationError` (from `@nanobot/schema`) at creation for bad options.
 */
export function governorMiddleware(options: GovernorMiddlewareOptions = {}): LanguageModelMiddleware {
  const { onReport, sessionKey, governor: given, ...governOptions } = options;
  if (sessionKey !== undefined && sessionKey !== null && typeof sessionKey !== 'string' && typeof sessionKey !== 'function') {
    throw new ValidationError('governorMiddleware: options.sessionKey must be a string or a function of the call', ['sessionKey']);
  }
  // Fails at creation, not on the first call, for options govern would refuse.
  const governor = given ?? createGovernor(governOptions);
  if (given !== undefined) governor.govern([], governOptions);
  const memo = dialectMemoOf(governor);
  // The last call's traits table and its JSON (see transformParams).
  let lastTraits: { table: ToolTraitsByName; json: string } | null = null;
  // Recent prompts (their records), to recognise the next one the SDK rebuilds from the same data.
  const previous: { headRole: unknown; headContent: unknown; record: PreviousView }[] = [];
  const pick = (prompt: readonly unknown[]): number => {
    const head = prompt[0] as { role?: unknown; content?: unknown } | undefined;
    if (head === undefined || head === null || typeof head !== 'object') return -1;
    return previous.findIndex((p) => p.headRole === head.role && (p.headContent === head.content || JSON.stringify(p.headContent) === JSON.stringify(head.content)));
  };
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params, model }) => {
      const at = pick(params.prompt);
      const prior = at >= 0 ? previous[at].record : undefined;
      const { view, shared } = convertToGovernorView(params.prompt, 'governorMiddleware', memo, prior);
      if (at >= 0) previous.splice(at, 1);
      const head = params.prompt[0] as { role?: unknown; content?: unknown } | undefined;
      if (head !== undefined) previous.unshift({ headRole: head.role, headContent: head.content, record: recordPrompt(params.prompt, view, prior, shared) });
      if (previous.length > PREVIOUS_KEPT) previous.pop();
      const callOptions: GovernOptions = { ...governOptions };
      // Without a target, the wrapped model's provider names the API the prompt goes to.
      if (callOptions.target === undefined) {
        const inferred = governorTargetFor(model?.provider);
        if (inferred !== undefined) callOptions.target = inferred;
      }
      if (callOptions.tools === undefined) callOptions.tools = toolDefinitions(params.tools);
      // Traits the call's tools declare (`providerOptions: nanobotToolTraits(…)`) decide the size
      // rules. The same declarations hand the governor the same table: its result-budget memos
      // key on the table's identity, and a new (equal) table per call re-read every tool result.
      if (callOptions.toolTraits === undefined) {
        const traits = aiSdkToolTraits(params.tools as Parameters<typeof aiSdkToolTraits>[0]);
        const json = JSON.stringify(traits);
        if (lastTraits === null || lastTraits.json !== json) lastTraits = { table: traits, json };
        callOptions.toolTraits = lastTraits.table;
      }
      if (callOptions.maxOutputTokens === undefined && params.maxOutputTokens !== undefined) callOptions.maxOutputTokens = params.maxOutputTokens;
      const key = callKey(params) ?? (typeof sessionKey === 'function' ? sessionKey(params) : sessionKey ?? undefined);
      if (key !== undefined && key !== null) callOptions.sessionKey = key;
      const { messages, report } = governor.govern(view.messages, callOptions);
      const prompt = fromGovernorView(params.prompt as readonly unknown[] as readonly AiMessage[], view, messages, 'v3-prompt', memo) as unknown[] as GovernedPrompt;
      onReport?.(report, prompt);
      return prompt === params.prompt ? params : { ...params, prompt };
    },
  };
}
