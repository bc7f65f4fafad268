import { aiSdkToolTraits } from './tool-traits.js';
import { createGovernor, type GovernOptions, type GovernReport, type Governor } from '@nanobot/governor';
import type { Message } from '@nanobot/schema';
import { dialectMemoOf } from '@nanobot/governor/dialect';
import type { ToolDefinition, ToolTraitsByName } from '@nanobot/schema';
import { ValidationError } from '@nanobot/schema';
// `ai` 7 ships ES modules only: with `resolution-mode` the CommonJS declarations (`.d.cts`) can
// still name its types under `module: node16` (TS1479 otherwise); ai 6 resolves the same way.
// scripts/build-package.mjs keeps such imports `import type` in the declarations.
import type { LanguageModelMiddleware } from 'ai' with { 'resolution-mode': 'import' };
import type { AiMessage } from './internal/ai-message.js';
import { fromGovernorView, writeAgain, type WrittenBack } from './internal/from-governor-messages.js';
import { convertToGovernorView, knownViewOf, recordPrompt, rememberView, sameAsRecord, type GovernorView, type PreviousView } from './internal/to-governor-messages.js';
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
 * What a call hands the governor besides the prompt. Each value is the same object for equal
 * settings (see transformParams), so two calls' settings are equal when their fields are.
 */
interface CallSettings {
  target: GovernOptions['target'];
  tools: GovernOptions['tools'];
  toolTraits: GovernOptions['toolTraits'];
  maxOutputTokens: GovernOptions['maxOutputTokens'];
  sessionKey: string | undefined;
}

function sameSettings(a: CallSettings, b: CallSettings): boolean {
  return a.target === b.target && a.tools === b.tools && a.toolTraits === b.toolTraits && a.maxOutputTokens === b.maxOutputTokens && a.sessionKey === b.sessionKey;
}

/**
 * The middleware's last governed call: what it handed the governor and what it got back. Its
 * result is the answer to the next call too when that call's prompt and settings are equal and
 * the call left the conversation's carried state (cut plan, compacted ids) as it found it
 * (`settled`): the governor, given the same list, options and state, gives the same result.
 */
interface LastCall {
  settings: CallSettings;
  /** The governor's input (its `messages`) and the prompt it was made from (see recordPrompt). */
  view: GovernorView;
  record: PreviousView | undefined;
  governed: readonly Message[];
  /** How its result was written back (see WrittenBack), to write it again over an equal prompt. */
  written: WrittenBack;
  report: GovernReport;
  /** The cut plan the call left (JSON). */
  cutPlan: string;
  /**
   * Whether the call's state was the one it left: the call before it governed the same list
   * (the same view) with the same settings, and this one changed neither the cut plan it
   * carried from there nor the compacted ids.
   */
  settled: boolean;
  /** The view of an equal rebuilt prompt (its origins name this call's objects), made once. */
  rebuilt?: GovernorView;
}

/**
 * The view of `prompt` when it equals the prompt `last` governed: the same message objects
 * (the view made for them), or rebuilt with every field the conversion reads equal (see
 * sameAsRecord); else undefined.
 */
function equalPromptView(prompt: readonly unknown[], last: LastCall, memo: ReturnType<typeof dialectMemoOf>): GovernorView | undefined {
  const known = knownViewOf(prompt, memo);
  if (known !== undefined) return known.messages === last.view.messages ? known : undefined;
  if (last.record === undefined || last.record.view.messages !== last.view.messages || !sameAsRecord(last.record, prompt)) return undefined;
  // As convertToGovernorView hands it for a prompt equal to a recorded one.
  last.rebuilt ??= last.view.reused === true ? last.view : { ...last.view, reused: true };
  rememberView(prompt, last.rebuilt, memo);
  return last.rebuilt;
}

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
  // A result is reused only where the middleware carries all the conversation's state itself:
  // its own Governor (nobody else governs, forgets or calibrates with it) and none of the options
  // that hand it state from outside (a store the governor writes again on every call, a set or
  // plan or calibrator of the caller's, a counter of the caller's, called on every call).
  const reusable = given === undefined && governOptions.artifactStore == null && governOptions.compactedToolCallIds === undefined
    && governOptions.cutPlan == null && governOptions.calibrator == null && governOptions.tokenCounter == null;
  // The last call's traits table and tool definitions, with their JSON (see transformParams).
  let lastTraits: { table: ToolTraitsByName; json: string } | null = null;
  let lastTools: { definitions: ToolDefinition[]; json: string } | null = null;
  let lastCall: LastCall | null = null;
  // Recent prompts (their records), to recognise the next one the SDK rebuilds from the same data.
  const previous: { headRole: unknown; headContent: unknown; record: PreviousView }[] = [];
  const pick = (prompt: readonly unknown[]): number => {
    const head = prompt[0] as { role?: unknown; content?: unknown } | undefined;
    if (head === undefined || head === null || typeof head !== 'object') return -1;
    return previous.findIndex((p) => p.headRole === head.role && (p.headContent === head.content || JSON.stringify(p.headContent) === JSON.stringify(head.content)));
  };
  const settingsOf = (params: GovernedCallOptions, model: { provider?: string } | undefined): CallSettings => {
    // Without a target, the wrapped model's provider names the API the prompt goes to.
    const target = governOptions.target ?? governorTargetFor(model?.provider);
    let tools = governOptions.tools;
    if (tools === undefined) {
      // Equal definitions are handed as the same array: the governor's estimates of a prompt
      // key on the tools' identity (new, equal definitions per call estimated it afresh).
      const definitions = toolDefinitions(params.tools);
      if (definitions === null) tools = null;
      else {
        const json = JSON.stringify(definitions);
        if (lastTools === null || lastTools.json !== json) lastTools = { definitions, json };
        tools = lastTools.definitions;
      }
    }
    // Traits the call's tools declare (`providerOptions: nanobotToolTraits(…)`) decide the size
    // rules. The same declarations hand the governor the same table: its result-budget memos
    // key on the table's identity, and a new (equal) table per call re-read every tool result.
    let toolTraits = governOptions.toolTraits;
    if (toolTraits === undefined) {
      const traits = aiSdkToolTraits(params.tools as Parameters<typeof aiSdkToolTraits>[0]);
      const json = JSON.stringify(traits);
      if (lastTraits === null || lastTraits.json !== json) lastTraits = { table: traits, json };
      toolTraits = lastTraits.table;
    }
    const maxOutputTokens = governOptions.maxOutputTokens === undefined ? params.maxOutputTokens : governOptions.maxOutputTokens;
    const key = callKey(params) ?? (typeof sessionKey === 'function' ? sessionKey(params) : sessionKey ?? undefined);
    return { target, tools, toolTraits, maxOutputTokens, sessionKey: key ?? undefined };
  };
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params, model }) => {
      const settings = settingsOf(params, model);
      const last = lastCall;
      // The same prompt and settings as the last call, which left the state as it found it:
      // its result, written back over this prompt's objects, without converting or governing.
      if (last !== null && last.settled && sameSettings(last.settings, settings)) {
        const view = equalPromptView(params.prompt, last, memo);
        if (view !== undefined) {
          const source = params.prompt as readonly unknown[] as readonly AiMessage[];
          const prompt = (last.written !== null ? writeAgain(last.written, source) : fromGovernorView(source, view, last.governed, 'v3-prompt', memo)) as unknown[] as GovernedPrompt;
          // A copy: the callback may keep or change the report it is handed.
          if (onReport !== undefined) onReport(structuredClone(last.report), prompt);
          return prompt === params.prompt ? params : { ...params, prompt };
        }
      }
      lastCall = null;
      const at = pick(params.prompt);
      const prior = at >= 0 ? previous[at].record : undefined;
      const { view, shared } = convertToGovernorView(params.prompt, 'governorMiddleware', memo, prior);
      if (at >= 0) previous.splice(at, 1);
      const head = params.prompt[0] as { role?: unknown; content?: unknown } | undefined;
      const record = head !== undefined ? recordPrompt(params.prompt, view, prior, shared) : undefined;
      if (record !== undefined) previous.unshift({ headRole: head!.role, headContent: head!.content, record });
      if (previous.length > PREVIOUS_KEPT) previous.pop();
      const callOptions: GovernOptions = { ...governOptions };
      if (settings.target !== undefined) callOptions.target = settings.target;
      callOptions.tools = settings.tools;
      callOptions.toolTraits = settings.toolTraits;
      if (settings.maxOutputTokens !== undefined) callOptions.maxOutputTokens = settings.maxOutputTokens;
      if (settings.sessionKey !== undefined) callOptions.sessionKey = settings.sessionKey;
      const result = governor.govern(view.messages, callOptions);
      const { messages, report } = result;
      const how: { written?: WrittenBack } = {};
      const prompt = fromGovernorView(params.prompt as readonly unknown[] as readonly AiMessage[], view, messages, 'v3-prompt', memo, how) as unknown[] as GovernedPrompt;
      if (reusable) {
        const cutPlan = JSON.stringify(result.cutPlan);
        const settled = last !== null && last.view.messages === view.messages && sameSettings(last.settings, settings)
          && last.cutPlan === cutPlan && report.newlyCompactedToolCallIds.length === 0;
        // Kept as it came: the callback below may change the report it is handed.
        const kept = onReport !== undefined ? structuredClone(report) : report;
        lastCall = { settings, view, record, governed: messages, written: how.written ?? null, report: kept, cutPlan, settled };
      }
      onReport?.(report, prompt);
      return prompt === params.prompt ? params : { ...params, prompt };
    },
  };
}
