import type { UsageCalibrator } from '@nanobot/governor';
import type { CliSettings } from './resolve-settings.js';

/**
 * What the governor of the CLI's requests is given: the model (its tokenizer comes from the model
 * table), window, reply size, result limit and the persisted usage calibration. `run`, `chat` and
 * `worker` pass it to `createAgent`; `inspect` governs with it, so both show the same request.
 */
export interface CliGovernorSettings {
  /** The model the requests go to; absent for the offline model (unknown to the model table). */
  model?: string;
  contextWindowTokens: number;
  maxTokens?: number;
  maxToolResultChars?: number;
  calibrator?: UsageCalibrator;
}

/** The governor settings of `settings`, with `calibrator` when there is one (only a real model reports usage). Pure. */
export function cliGovernorSettings(settings: CliSettings, calibrator: UsageCalibrator | null): CliGovernorSettings {
  const choice = settings.model;
  return {
    ...(choice.kind === 'remote' ? { model: choice.model } : {}),
    contextWindowTokens: settings.contextWindowTokens,
    ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
    ...(settings.maxToolResultChars !== undefined ? { maxToolResultChars: settings.maxToolResultChars } : {}),
    ...(calibrator && choice.kind === 'remote' ? { calibrator } : {}),
  };
}
