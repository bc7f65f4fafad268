import type { UsageCalibrator } from '@nanobot/governor';
import { replyReserveFor } from '@nanobot/providers';
import type { ModelFacts } from '@nanobot/providers';
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

/**
 * The governor settings of `settings`, with `calibrator` when there is one (only a real model
 * reports usage). With the window left to the model (`windowFromModel`) and its `facts` known,
 * the window and reply reserve are the ones the runner takes from the same facts. Pure.
 */
export function cliGovernorSettings(settings: CliSettings, calibrator: UsageCalibrator | null, facts?: ModelFacts | null): CliGovernorSettings {
  const choice = settings.model;
  const fromFacts = settings.windowFromModel && facts?.contextWindow !== undefined ? facts.contextWindow : undefined;
  const maxTokens = settings.maxTokens ?? (fromFacts !== undefined ? replyReserveFor(fromFacts, facts?.maxOutput) : undefined);
  return {
    ...(choice.kind === 'remote' ? { model: choice.model } : {}),
    contextWindowTokens: fromFacts ?? settings.contextWindowTokens,
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(settings.maxToolResultChars !== undefined ? { maxToolResultChars: settings.maxToolResultChars } : {}),
    ...(calibrator && choice.kind === 'remote' ? { calibrator } : {}),
  };
}
