// The settings one govern call runs its steps with, resolved once from the checked options.
import type { Message } from '@nanobot/schema';
import type { GovernOptions } from './govern-options.js';
import { calibratedBudget } from './sizing/calibrated-budget.js';
import type { EstimateMemo } from './sizing/estimate.js';
import { inputBudget, replyReserve, type ReplyReserve } from './sizing/input-budget.js';
import { estimatorFor, withModelDefaults } from './sizing/model-defaults.js';
import { NO_CACHE, type DerivationCache } from './steps/derivation-cache.js';
import type { StepContext } from './steps/step.js';
import type { GovernTarget } from './steps/target/govern-target.js';
import { TARGET_BEHAVIOURS } from './steps/target/profiles/behaviours.js';

/** A call's step context, and the two budgets (the model's input budget, and in estimate units). */
export interface ResolvedCall {
  ctx: StepContext;
  /** The model's input budget (billed tokens when a calibrator applies). */
  fullBudget: number;
  /** The calibrator and model when calibration applies. */
  calibration: { calibrator: NonNullable<GovernOptions['calibrator']>; model: string } | null;
  /** The call's estimate cache by list identity (steps' own estimates are kept there too). */
  tokenCache: Map<readonly Message[], number>;
  /** The reply reserve the budget was computed with, when there is a window (`report.replyReserve`). */
  replyReserve: ReplyReserve | null;
}

/** The default mode scales the reserve with the window when no reply size is known. */
function sizedOptions(options: GovernOptions): GovernOptions & { replyReserveDefault: 'window' | 'reference' } {
  // The added key first, then the spread: on Node 20 (V8 11.3) a key added after a spread made a
  // new hidden class for every object (~0.8 µs a key); set again after, so it wins as before.
  const sized = { replyReserveDefault: 'window' as 'window' | 'reference', ...options };
  sized.replyReserveDefault = options.compat !== 'reference' ? 'window' : 'reference';
  return sized;
}

function reserveOf(options: GovernOptions, given: GovernOptions): ReplyReserve | null {
  const reserve = options.contextWindowTokens ? replyReserve(sizedOptions(options)) : null;
  // A reply size the model table filled in (withModelDefaults) is the model's, not the caller's.
  return reserve !== null && reserve.source === 'maxOutputTokens' && !(typeof given.maxOutputTokens === 'number') ? { ...reserve, source: 'model' } : reserve;
}

/**
 * The reply reserve `govern` subtracts for these options, and where it came from (what
 * `report.replyReserve` says): the caller's reply size, the model table's, else the default of
 * the mode (window-scaled by default, the reference's 4,096 with `compat: 'reference'`); null
 * without a window. For callers that size something else the same way (a runner's consolidator).
 * Pure.
 */
export function governReplyReserve(options: Pick<GovernOptions, 'contextWindowTokens' | 'maxOutputTokens' | 'providerMaxTokens' | 'model' | 'compat'>): ReplyReserve | null {
  return reserveOf(withModelDefaults(options), options);
}

/**
 * Resolves checked options (model defaults filled, target and overflow defaults, the budget in
 * estimate units) into the context the steps read. Pure; `derive` and `estimates` are the
 * Governor's memos (none by default).
 */
export function resolveCall(history: readonly Message[], given: GovernOptions, derive: DerivationCache = NO_CACHE, estimates: EstimateMemo | null = null): ResolvedCall {
  const options = withModelDefaults(given);
  const fixed = options.compat !== 'reference';
  const target: GovernTarget | null = options.target ?? (fixed ? 'any' : null);
  const calibration = options.calibrator && options.model ? { calibrator: options.calibrator, model: options.model } : null;
  const fullBudget = inputBudget(sizedOptions(options));
  const reserve = reserveOf(options, given);
  const budget = calibration ? calibratedBudget(fullBudget, calibration.calibrator, calibration.model) : fullBudget;
  const tokenCache = new Map<readonly Message[], number>();
  const ctx: StepContext = {
    options,
    fixed,
    target,
    profile: target === null ? null : TARGET_BEHAVIOURS[target],
    onOverflow: options.onOverflow ?? (fixed ? 'shrink' : 'send'),
    budget,
    estimate: { tools: options.tools ?? null, tokenCounter: options.tokenCounter ?? null, estimateCache: tokenCache, estimator: estimatorFor(options), memo: estimates },
    history,
    compactedToolCallIds: options.compactedToolCallIds ?? new Set<string>(),
    derive,
  };
  return { ctx, fullBudget, calibration, tokenCache, replyReserve: reserve };
}
