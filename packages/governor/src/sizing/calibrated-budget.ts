import { ValidationError } from '@nanobot/schema';
import type { TokenCalibration } from './usage-calibrator.js';

function calibrated(calibration: TokenCalibration, model: string, estimated: number): number {
  const v = calibration.calibrate(model, estimated);
  if (typeof v !== 'number' || Number.isNaN(v)) throw new ValidationError(`govern: options.calibrator.calibrate returned ${String(v)} for ${estimated} tokens`, ['calibrator']);
  return v;
}

/**
 * The budget in estimate units: the largest estimate whose calibrated count still fits `budget`
 * (at least 1, as a budget of 0 would turn sizing off). Governing the estimate against it is
 * governing the calibrated count against `budget`, so every sizing step stays unchanged.
 * Relies on `calibrate` being non-decreasing; about 2·log2(budget) calls.
 */
export function calibratedBudget(budget: number, calibration: TokenCalibration, model: string): number {
  if (budget <= 0) return budget;
  const fits = (e: number): boolean => calibrated(calibration, model, e) <= budget;
  // A calibration below 1 lets more than `budget` estimated tokens fit: find an upper bound first.
  let hi = budget;
  while (fits(hi) && hi < budget * 1024) hi *= 2;
  if (fits(hi)) return hi;
  let lo = 0;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return Math.max(lo, 1);
}

/** The calibrated count of `estimated` (throws for a calibrator returning no number). */
export function calibratedTokens(calibration: TokenCalibration, model: string, estimated: number): number {
  return calibrated(calibration, model, estimated);
}
