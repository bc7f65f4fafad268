import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createUsageCalibrator, usageCalibratorFromJSON } from '@nanobot/governor';
import type { UsageCalibrator } from '@nanobot/governor';

/** File name of the usage calibration, beside the sessions. */
export const CALIBRATION_FILE = 'usage-calibration.json';

/** A usage calibrator kept in a JSON file. */
export interface CalibrationFile {
  calibrator: UsageCalibrator;
  /** Writes the state (atomically: a temp file renamed over it). Never throws; a failure goes to `notice`. */
  save(): void;
}

/**
 * Loads the calibrator saved at `path` (a fresh one when there is none). A file that is not a
 * saved calibration is moved aside to `<path>.bad` (nothing lost) and reported through `notice`
 * (called synchronously; must not throw).
 */
export function openCalibrationFile(path: string, notice?: (text: string) => void): CalibrationFile {
  let calibrator: UsageCalibrator | null = null;
  let text: string | null = null;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    // No file yet: start fresh.
  }
  if (text !== null) {
    try {
      calibrator = usageCalibratorFromJSON(text);
    } catch (error) {
      try {
        renameSync(path, `${path}.bad`);
        notice?.(`${path} is not a usage calibration (${(error as Error).message}); moved it to ${path}.bad and starting fresh`);
      } catch {
        notice?.(`${path} is not a usage calibration (${(error as Error).message}); starting fresh`);
      }
    }
  }
  const live = calibrator ?? createUsageCalibrator();
  return {
    calibrator: live,
    save() {
      try {
        mkdirSync(dirname(path), { recursive: true });
        const tmp = `${path}.${process.pid}.tmp`;
        writeFileSync(tmp, `${JSON.stringify(live)}\n`);
        renameSync(tmp, path);
      } catch (error) {
        notice?.(`could not save the usage calibration to ${path}: ${(error as Error).message}`);
      }
    },
  };
}

/**
 * The calibrator saved at `path`, read only (for `inspect`): null when there is no file; a file
 * that is not a saved calibration is left where it is, reported through `notice` (called
 * synchronously; must not throw), and null is returned.
 */
export function readCalibrationFile(path: string, notice?: (text: string) => void): UsageCalibrator | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    return usageCalibratorFromJSON(text);
  } catch (error) {
    notice?.(`${path} is not a usage calibration (${(error as Error).message}); estimates are shown uncalibrated`);
    return null;
  }
}
