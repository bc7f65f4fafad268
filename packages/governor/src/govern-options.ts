// What govern takes besides the history: its options, checked once per call before anything
// runs (wrong types would otherwise be coerced or silently ignored), and what it returns.
import type { Message, TokenCounter, ToolTraitsByName } from '@nanobot/schema';
import { ValidationError } from '@nanobot/schema';
import type { ArtifactStore } from './offload/artifact-store.js';
import type { GovernReport } from './report/govern-report.js';
import { checkCutOptions, type CutPlan } from './steps/cut/cut-plan.js';
import { GOVERN_TARGETS, type GovernTarget } from './steps/target/govern-target.js';
import type { MessageLike } from './message-like.js';
import { checkModelOptions, type ModelOptions } from './sizing/model-defaults.js';
import type { TokenCalibration } from './sizing/usage-calibrator.js';

/**
 * Options of {@link govern}. Everything is optional; with none, only the repairs run. `model`
 * (with `models` overrides) fills the window, reply size and `tokenizer` from the model table
 * where they are not set; see {@link ModelOptions}.
 */
export interface GovernOptions extends ModelOptions {
  /** The model's context window. Without it the budget is 0: no compaction, no snipping. */
  contextWindowTokens?: number | null;
  /** Tokens reserved for the reply (default: `providerMaxTokens`, else 4096). */
  maxOutputTokens?: number | null;
  /** The provider's default reply size, used when `maxOutputTokens` is unset. */
  providerMaxTokens?: number | null;
  /** Overrides the computed input budget when set and non-zero (reference semantics). */
  contextBlockLimit?: number | null;
  /** Per-result size limit in characters (default 16000); `<= 0` disables offload and truncation. */
  maxToolResultChars?: number;
  /** Index of the first message appended during the current run; older results are never compacted. */
  inflightStartIndex?: number;
  /**
   * Ids compacted earlier in this run. Keep one set per run and pass it to every call: govern
   * re-applies these compactions (so the prompt prefix stays stable) and ADDS the ids it
   * compacts to this set — the one intentional mutation, as in the reference.
   */
  compactedToolCallIds?: Set<string>;
  /**
   * Tool definitions sent with the request (any JSON: OpenAI `ChatCompletionTool`s, our
   * `ToolDefinition`s); their JSON counts against the budget.
   */
  tools?: readonly object[] | null;
  /**
   * The tools' declared traits by name (the registry's `toolTraits()`, `aiSdkToolTraits(tools)`).
   * In the default mode they alone decide: `compactable` results may be replaced by a note under
   * pressure, `rereadable` results are cut with a continuation hint instead of offloaded;
   * `readOnly` changes nothing here. A tool not listed gets no special treatment, whatever its
   * name. Ignored with `compat: 'reference'`, where the reference's name lists decide.
   */
  toolTraits?: ToolTraitsByName | null;
  /**
   * The API the copy is sent to (default `'any'`: legal for both OpenAI and Anthropic). The copy
   * is then directly acceptable to it: empty assistant turns dropped, blank text removed or
   * filled, `developer` kept (OpenAI) or made `system` (Anthropic, `'any'`), mid-history
   * instructions turned into marked user notes, same-role turns merged and a user turn last
   * (Anthropic, `'any'`), a user turn first (all). The other targets apply their provider's
   * declared profile (`TARGET_PROFILES`): Gemini, Bedrock, Mistral (9-alphanumeric ids, never a
   * user message right after a tool message), DeepSeek, OpenRouter, Responses. With
   * `compat: 'reference'` and no target these steps are off.
   */
  target?: GovernTarget;
  /**
   * What to do when the instructions, tools and newest user turn alone exceed the budget:
   * `'shrink'` (default) shortens the newest oversized content (full text saved through
   * `artifactStore` when there is one, cut otherwise; both reported); `'throw'` throws
   * {@link BudgetExceededError}; `'send'` returns the over-budget copy. `report.fits` and
   * `report.overflow` say what happened either way. Default `'send'` with `compat: 'reference'`.
   */
  onOverflow?: 'shrink' | 'throw' | 'send';
  /** Where oversized results are offloaded (sync). Without one they are only truncated. */
  artifactStore?: ArtifactStore | null;
  /** Session bucket for offloaded results. */
  sessionKey?: string | null;
  /**
   * Exact provider token counter, tried before the estimate. Called synchronously (never
   * awaited); must not mutate the messages or tools; may throw (the estimate is used then).
   */
  tokenCounter?: TokenCounter | null;
  /** Opt-in older microcompaction: keep only this many newest compactable results intact. */
  keepRecentCompactableResults?: number | null;
  /**
   * `'reference'` reproduces the reference exactly, weak spots included (no id repair, no
   * regrouping of displaced results, snipping may overflow). Default `'fixed'`.
   */
  compat?: 'fixed' | 'reference';
  /** Report per-step token estimates even without a budget (costs a tokenisation when cold). */
  estimateTokens?: boolean;
  /**
   * Maps the estimate to the count the provider will bill, e.g. a `createUsageCalibrator()` the
   * runner feeds with usage. With a `model`, sizing fits the calibrated count into the budget
   * (`report.budget` is then in estimate units; see `report.inputBudget`). Called synchronously,
   * must be non-decreasing and must not throw (a throw propagates).
   */
  calibrator?: TokenCalibration | null;
  /**
   * How snipping cuts an over-budget history: `'stable'` (default) in steps at turn starts,
   * re-applying `cutPlan` while the history behind it fits (prompt-cache friendly);
   * `'tightest'` as much as fits at every request. Ignored with `compat: 'reference'`.
   */
  cuts?: 'stable' | 'tightest';
  /**
   * The previous request's `result.cutPlan` for this session (plain JSON; null or absent for
   * none). A plan that does not match the history is ignored; a malformed one throws.
   */
  cutPlan?: CutPlan | null;
  /** Share (0 < r <= 1) of the room behind the instructions a fresh stable cut fills (default 0.6). */
  cutTargetRatio?: number;
  /**
   * The server-side context management the request turns on (the `contextManagement` given to
   * the provider: Anthropic `{ edits: [...] }`, OpenAI Responses `[{ type: 'compaction', … }]`).
   * The governor does not apply it (the server does); the report says it is on
   * (`report.serverEditing`).
   */
  serverContextManagement?: Readonly<Record<string, unknown>> | readonly Readonly<Record<string, unknown>>[] | null;
}

/** Result of {@link govern}. */
export interface GovernResult<M extends MessageLike = Message> {
  /**
   * The model copy: legal for the target and within budget (or `report.fits` is false);
   * unchanged messages are the input objects. Messages the governor adds or rewrites (results
   * for lost calls, notes, merged turns) are Chat Completions messages of the same shape.
   */
  messages: M[];
  report: GovernReport;
  /** The plan of this request's history cut: pass it as `cutPlan` next time (null: no cut). */
  cutPlan: CutPlan | null;
}

/**
 * Throws {@link ValidationError} unless `messages` is an array whose entries from `from` on are
 * message objects (the entries before `from` are known to be: an earlier call checked them).
 */
export function checkInput(messages: unknown, from = 0): asserts messages is readonly Message[] {
  if (!Array.isArray(messages)) throw new ValidationError('govern: messages must be an array');
  for (let i = from; i < messages.length; i++) {
    const m = messages[i] as unknown;
    if (m === null || typeof m !== 'object' || Array.isArray(m)) {
      throw new ValidationError(`govern: messages[${i}] must be an object`, [i]);
    }
  }
}

const NUMERIC_OPTIONS = [
  'contextWindowTokens', 'maxOutputTokens', 'providerMaxTokens', 'contextBlockLimit',
  'maxToolResultChars', 'inflightStartIndex', 'keepRecentCompactableResults',
] as const;

// Wrong types would otherwise be coerced or silently ignored (a string window from an env var,
// a NaN budget that turns snipping off and puts `null` in the report). Negative numbers keep
// their reference meaning (budget 0, no size limit), so only the type is checked.
/** Throws {@link ValidationError} for options of the wrong type (before anything runs). */
export function checkOptions(options: unknown): asserts options is GovernOptions {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new ValidationError('govern: options must be an object');
  }
  const o = options as Record<string, unknown>;
  for (const key of NUMERIC_OPTIONS) {
    const v = o[key];
    if (v !== undefined && v !== null && (typeof v !== 'number' || !Number.isFinite(v))) {
      throw new ValidationError(`govern: options.${key} must be a finite number, got ${typeof v === 'number' ? v : JSON.stringify(v) ?? typeof v}`, [key]);
    }
  }
  if (o.compactedToolCallIds !== undefined && !(o.compactedToolCallIds instanceof Set)) {
    throw new ValidationError('govern: options.compactedToolCallIds must be a Set (one per agent run)', ['compactedToolCallIds']);
  }
  if (o.tools !== undefined && o.tools !== null && !Array.isArray(o.tools)) {
    throw new ValidationError('govern: options.tools must be an array of tool definitions', ['tools']);
  }
  const traits = o.toolTraits;
  if (traits !== undefined && traits !== null && (typeof traits !== 'object' || Array.isArray(traits)
    || Object.values(traits as object).some((t) => t === null || typeof t !== 'object' || typeof (t as { compactable?: unknown }).compactable !== 'boolean'))) {
    throw new ValidationError('govern: options.toolTraits must map tool names to resolved traits (toolTraitsTable / registry.toolTraits())', ['toolTraits']);
  }
  const store = o.artifactStore as { persist?: unknown; read?: unknown } | null | undefined;
  if (store !== undefined && store !== null && (typeof store !== 'object' || typeof store.persist !== 'function' || typeof store.read !== 'function')) {
    throw new ValidationError('govern: options.artifactStore must have persist() and read()', ['artifactStore']);
  }
  const counter = o.tokenCounter as { countPromptTokens?: unknown } | null | undefined;
  if (counter !== undefined && counter !== null && typeof counter.countPromptTokens !== 'function') {
    throw new ValidationError('govern: options.tokenCounter must have countPromptTokens()', ['tokenCounter']);
  }
  if (o.sessionKey !== undefined && o.sessionKey !== null && typeof o.sessionKey !== 'string') {
    throw new ValidationError('govern: options.sessionKey must be a string', ['sessionKey']);
  }
  if (o.target !== undefined && !GOVERN_TARGETS.includes(o.target as GovernTarget)) {
    throw new ValidationError(`govern: options.target must be one of ${GOVERN_TARGETS.map((t) => `'${t}'`).join(', ')}, got ${JSON.stringify(o.target)}`, ['target']);
  }
  if (o.onOverflow !== undefined && o.onOverflow !== 'shrink' && o.onOverflow !== 'throw' && o.onOverflow !== 'send') {
    throw new ValidationError(`govern: options.onOverflow must be 'shrink', 'throw' or 'send', got ${JSON.stringify(o.onOverflow)}`, ['onOverflow']);
  }
  const calibrator = o.calibrator as { calibrate?: unknown } | null | undefined;
  if (calibrator !== undefined && calibrator !== null && (typeof calibrator !== 'object' || typeof calibrator.calibrate !== 'function')) {
    throw new ValidationError('govern: options.calibrator must have calibrate()', ['calibrator']);
  }
  if (o.compat !== undefined && o.compat !== 'fixed' && o.compat !== 'reference') {
    throw new ValidationError(`govern: options.compat must be 'fixed' or 'reference', got ${JSON.stringify(o.compat)}`, ['compat']);
  }
  checkModelOptions(o);
  checkCutOptions(o);
}

