import type { ModelFactsSource } from '@nanobot/providers';
import type { GovernOptions, UsageCalibrator } from '@nanobot/governor';
import type { LLMRequest, ModelPrices } from '@nanobot/schema';
import type { Tracer } from '@opentelemetry/api';
import type { EventSink, RunnerEvent } from './runner-events.js';
import type { RunnerHooks } from './runner-hooks.js';
import type { GovernedObserver, GovernFn, RunnerGovernOptions } from './runner-ports.js';

/**
 * How every run of an agent talks to its model and governor: declared once here, and passed
 * whole (`{ ...settings }`) from `createAgent` to the `AgentLoop`, the `SubagentManager` and each
 * run's `AgentRunSpec` (the way vercel/ai passes its call settings). Every field is optional;
 * each says its default.
 */
export interface RunSettings {
  /** The model asked for (default the provider's `defaultModel`). */
  model?: string;
  temperature?: number;
  /** The reply's largest size in tokens; also the governor's reply reserve. */
  maxTokens?: number;
  reasoningEffort?: string | null;
  /**
   * Server-side context management sent with every request as the provider's
   * `context_management` (Anthropic `{ edits: [...] }` with its beta headers, OpenAI Responses
   * `[{ type: 'compaction', compact_threshold }]`), and told to the governor as its
   * `serverContextManagement`, so each governance report says the server edits the context
   * (`report.serverEditing`). Default none.
   */
  contextManagement?: LLMRequest['contextManagement'];
  /** The model's window: enables the governor's compaction and snipping. */
  contextWindowTokens?: number;
  contextBlockLimit?: number;
  /**
   * Where the model's window and largest reply come from when `contextWindowTokens` is not set
   * (e.g. `ModelFactsCache` of @nanobot/providers: the provider's models endpoint, cached, with
   * the model table as fallback). Asked once per run before the first request; its answer
   * sizes the governor (window, and a reply reserve of at most 16 384 tokens or a quarter of
   * the window, unless `maxTokens` is set) and is reported as a `model_facts` event. A lookup
   * that fails never fails the run: the event says why and the governor's defaults serve.
   */
  modelFacts?: ModelFactsSource;
  /** Iterations (model calls that may run tools) before the run is cut short. Default 200. */
  maxIterations?: number;
  /** Per-result character budget handed to the governor. Default 16000. */
  maxToolResultChars?: number;
  /**
   * Builds the model copy before every request. Default: the runner's `Governor` (one per
   * agent, from `createGovernor` of @nanobot/governor) with the run's budget options plus
   * `governOptions`.
   */
  govern?: GovernFn;
  /** Extra options for the default governor (artifact store for offload, token counter, …). */
  governOptions?: Omit<GovernOptions, Exclude<keyof RunnerGovernOptions, 'target' | 'serverContextManagement'>>;
  /** Sees every governed request (transcript, governed copy, report); see {@link GovernedObserver}. */
  onGoverned?: GovernedObserver;
  /**
   * Learns how the governor's estimate relates to the provider's `usage.inputTokens` (e.g.
   * `createUsageCalibrator()` from @nanobot/governor, shared across runs): the runner feeds it
   * after every request with usage, and the governor sizes by its calibrated count. Called
   * synchronously; must not throw. Default none (`createAgent` makes one per agent).
   */
  calibrator?: UsageCalibrator | null;
  /**
   * Longest wait for the provider's exact count (`countTokens`, used with a calibrator on a
   * session's first request and while the calibrator knows nothing of the model), in ms
   * (default 15 000). A slower count is abandoned and the estimate serves.
   */
  countTokensTimeoutMs?: number;
  /** Stream from the provider (deltas become `model_delta` events). Default true. */
  stream?: boolean;
  /** Wall clock per model request; 0 or less disables. Default 300000 (streaming: at least that). */
  llmTimeoutMs?: number;
  hooks?: RunnerHooks | readonly RunnerHooks[];
  events?: EventSink | readonly EventSink[];
  /** Called (not awaited) when an event sink throws. Must not throw. */
  onSinkError?: (error: unknown, event: RunnerEvent) => void;
  /**
   * Prices for the cost in usage and events (USD per million tokens). Default: looked up in the
   * model table by the model that answered; `false`: no cost.
   */
  pricing?: ModelPrices | false;
  /**
   * OpenTelemetry tracer for the run's spans (turn, model calls, tool calls, governance). Default:
   * the global tracer, a no-op unless an OpenTelemetry SDK is registered; `false`: none.
   */
  tracer?: Tracer | false;
}

/** Every key of {@link RunSettings}, once (the compiler checks the list is complete). */
const RUN_SETTING_KEYS = [
  'model',
  'temperature',
  'maxTokens',
  'reasoningEffort',
  'contextManagement',
  'contextWindowTokens',
  'contextBlockLimit',
  'modelFacts',
  'maxIterations',
  'maxToolResultChars',
  'govern',
  'governOptions',
  'onGoverned',
  'calibrator',
  'countTokensTimeoutMs',
  'stream',
  'llmTimeoutMs',
  'hooks',
  'events',
  'onSinkError',
  'pricing',
  'tracer',
] as const satisfies readonly (keyof RunSettings)[];

// A key added to RunSettings but not to the list above fails to compile here.
type MissingKeys = Exclude<keyof RunSettings, (typeof RUN_SETTING_KEYS)[number]>;
const complete: MissingKeys extends never ? true : never = true;
void complete;

/**
 * The run settings among `options` (an `AgentLoopOptions`, `CreateAgentOptions`, …): the
 * {@link RunSettings} fields that are set, nothing else. A new object; `options` is not touched.
 */
export function runSettingsOf(options: RunSettings): RunSettings {
  const out: Record<string, unknown> = {};
  for (const key of RUN_SETTING_KEYS) if (options[key] !== undefined) out[key] = options[key];
  return out as RunSettings;
}
