// What a governor step is: a named rule over the message list, declared with what it may
// change, when it runs, and whether it leaves a structurally clean list alone. `pipeline.ts`
// lists the steps in the order they run; `govern` runs that table through one recorder and
// builds the report from the outcomes. A step file holds its rule and this declaration, nothing
// else (no module-level state: memos live in `incremental/`, owned by a `Governor`).
import type { Message } from '@nanobot/schema';
import type { GovernOptions } from '../govern-options.js';
import type { GovernStepName, ReportedMessage, ReportedToolResult } from '../report/govern-report.js';
import type { EstimateContext } from '../sizing/estimate.js';
import type { CutPlan } from './cut/cut-plan.js';
import type { DerivationCache } from './derivation-cache.js';
import type { GovernTarget } from './target/govern-target.js';
import type { TargetBehaviour } from './target/target-profile.js';

/**
 * What a step may do to the list it is given (declared, and checked by the pipeline's property
 * test): `drop` removes messages, `insert` adds messages the governor makes, `rewrite` replaces
 * a message by a changed copy in its place, `merge` turns neighbours into one message, `reorder`
 * moves messages.
 */
export type StepEffect = 'drop' | 'insert' | 'rewrite' | 'merge' | 'reorder';

/** Everything a step may read besides the list: the call's settings, resolved once. */
export interface StepContext {
  /** The call's options, with the model table's defaults filled in. */
  readonly options: GovernOptions;
  /** `compat` is not `'reference'`: the fixes for the reference's weak spots run. */
  readonly fixed: boolean;
  /** The API the copy is made legal for (null: no target steps, `compat: 'reference'`). */
  readonly target: GovernTarget | null;
  /** How `target` takes a history: its profile without the rule list, which no step reads (null with no target). */
  readonly profile: TargetBehaviour | null;
  /** What happens when the newest turn cannot fit (`options.onOverflow` with its default). */
  readonly onOverflow: 'shrink' | 'throw' | 'send';
  /** The input budget in estimate units (0: no budget; compaction, snipping and shrinking off). */
  readonly budget: number;
  /** How prompts are counted in this call (tools, counter, estimator, the call's estimate cache). */
  readonly estimate: EstimateContext;
  /** The caller's history, as given (the first step's input). */
  readonly history: readonly Message[];
  /** Ids compacted earlier in this run (the caller's set, or the Governor's per run). */
  readonly compactedToolCallIds: ReadonlySet<string>;
  /** Where rules keep the messages they derive (the Governor's memo, or none). */
  readonly derive: DerivationCache;
}

/**
 * What one run of a step produced, in one shape for every step. Only `messages` is required;
 * the rest is what the report cannot tell from comparing the lists by identity.
 */
export interface StepOutcome {
  /** The step's output: the input array itself when nothing changed; never the input mutated. */
  messages: Message[];
  /**
   * Report entries when a step knows why it removed or added messages (reasons, locations);
   * without them the report lists what differs between input and output, by identity.
   */
  removed?: readonly ReportedMessage[];
  added?: readonly ReportedMessage[];
  /** Tool results whose content changed (offloaded, truncated, compacted, renamed, moved). */
  toolResults?: ReportedToolResult[];
  /** Prompt estimates the step already made (reused by the report, not counted again). */
  tokensBefore?: number;
  tokensAfter?: number;
  /** Remarks for the report. */
  notes?: string[];
  /** Ids the step compacted (compaction): govern adds them to the run's set. */
  newlyCompacted?: string[];
  /** The cut (snipping): the report's `cut` and the result's `cutPlan` come from it. */
  cut?: StepCut;
  /**
   * Set when the step had to withhold content the model needs (not even a short preview of the
   * results it waits on fitted): while one of `messages` (the notes standing in for it) reaches
   * the copy, the copy counts as not fitting (`report.fits` false, `report.overflow` with
   * `reason`), even when what is left is under the budget.
   */
  withheld?: { reason: string; messages: readonly Message[] };
}

/** What the report and the next request need of a history cut. */
export interface StepCut {
  /** The plan to pass back next time (null: no stable cut). */
  plan: CutPlan | null;
  /** The first kept non-instruction message, when anything was cut. */
  firstKept: Message | null;
  /** How many non-instruction messages were cut. */
  removedCount: number;
  /** Whether the caller's plan was re-applied. */
  reused: boolean;
  /** How a server compaction anchor decided the cut (absent: it did not). */
  serverCompaction?: 'cut-at-anchor' | 'anchor-kept';
}

/** One declared step of the pipeline. */
export interface GovernStep {
  /** The name in the report (`GovernStepName`). */
  readonly name: GovernStepName;
  /** What the step may change (see {@link StepEffect}). */
  readonly may: readonly StepEffect[];
  /**
   * Whether the step returns its input unchanged for every structurally clean list (see
   * `isStructurallyClean`: no placeholder turn, every call valid with a unique id and answered
   * once right after its turn, no other tool message). The incremental layer skips such a step
   * on a clean list; a property test proves the declaration for every clean list.
   */
  readonly noopOnClean: boolean;
  /**
   * Whether a structurally clean list stays clean through the step (it changes content or drops
   * messages outside the call/result structure, never that structure). Proved by the same test.
   */
  readonly keepsClean: boolean;
  /** Whether the step runs in this call (a step that does not run is not in the report). Pure. */
  runs(ctx: StepContext, list: readonly Message[]): boolean;
  /** The rule. Pure apart from writes through `options.artifactStore`; never mutates `list`. */
  run(list: readonly Message[], ctx: StepContext): StepOutcome;
}

/** Declares a step: the object frozen (steps are shared, immutable data). */
export function defineStep(step: GovernStep): GovernStep {
  return Object.freeze(step);
}
