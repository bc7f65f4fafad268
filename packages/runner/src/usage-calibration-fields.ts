import type { TokenCalibration, UsageObservation } from '@nanobot/governor';
import type { Usage } from '@nanobot/schema';

/** The estimate-vs-billed figures a `model_end` event carries. */
export interface UsageCalibrationFields {
  /** The governor's raw estimate of the request's prompt. */
  tokensEstimated?: number;
  /** What sizing used: the calibrated count (= the estimate without a calibrator). */
  tokensCalibrated?: number;
  /** `usage.inputTokens` as the provider reported it (absent when it reported none). */
  tokensActual?: number;
}

/**
 * Feeds one request's usage to the calibrator (when there is one and both counts are known) and
 * returns the figures for its event. The calibrator's `observe` is called synchronously and
 * must not throw (a throw propagates and ends the run).
 */
export function observeUsage(
  calibrator: (TokenCalibration & { observe(o: UsageObservation): unknown }) | null | undefined,
  model: string,
  estimate: { estimated: number | null; calibrated: number | null },
  usage: Usage,
): UsageCalibrationFields {
  const fields: UsageCalibrationFields = {};
  const actual = usage.inputTokens;
  const reported = typeof actual === 'number' && Number.isFinite(actual) && actual > 0;
  if (estimate.estimated !== null) {
    fields.tokensEstimated = estimate.estimated;
    fields.tokensCalibrated = estimate.calibrated ?? estimate.estimated;
  }
  if (reported) fields.tokensActual = actual;
  if (calibrator && reported && estimate.estimated !== null) calibrator.observe({ model, estimated: estimate.estimated, actual });
  return fields;
}
