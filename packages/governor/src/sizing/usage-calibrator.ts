import { ValidationError } from '@nanobot/schema';

/** One billed request: the governor's estimate of its prompt and what the provider counted. */
export interface UsageObservation {
  /** The model that answered (the key the calibration is kept under). */
  model: string;
  /** The governor's raw estimate of the prompt sent (`report.tokensEstimated`). */
  estimated: number;
  /**
   * The provider's `usage.inputTokens` for that request: every input token, cached and
   * cache-written ones included (see `Usage` in @nanobot/schema).
   */
  actual: number;
}

/** What {@link govern} needs of a calibrator: a non-decreasing map from estimate to billed count. */
export interface TokenCalibration {
  /**
   * The billed count to expect for a prompt estimated at `estimated` tokens. Must be
   * non-decreasing in `estimated`, synchronous (never awaited) and pure; a throw propagates.
   */
  calibrate(model: string, estimated: number): number;
}

/** Serialised calibrator state (plain JSON): the accepted ratios per model, oldest first. */
export interface UsageCalibratorState {
  version: 1;
  models: Record<string, number[]>;
}

/** Learns per model how the estimate relates to the billed count; see {@link createUsageCalibrator}. */
export interface UsageCalibrator extends TokenCalibration {
  /**
   * Records one billed request. Returns whether it was used: observations with a non-finite or
   * non-positive count, an estimate below `minEstimated`, or a ratio outside
   * `[minRatio, maxRatio]` are ignored (a provider that reports nothing, a garbled count).
   */
  observe(observation: UsageObservation): boolean;
  /** The factor `calibrate` applies for `model` (headroom included); `null` before any observation. */
  ratio(model: string): number | null;
  /** The state, for persisting; restore it with {@link usageCalibratorFromJSON}. */
  toJSON(): UsageCalibratorState;
}

/** Options of {@link createUsageCalibrator}. */
export interface UsageCalibratorOptions {
  /** Observations kept per model; the calibration follows the largest ratio among them. Default 32. */
  window?: number;
  /**
   * The under-count the calibrator accepts, as a fraction (default 0.02). It is also the headroom
   * added on top of the largest recent ratio; see {@link createUsageCalibrator} for the guarantee.
   */
  margin?: number;
  /** Ratios (actual ÷ estimated) below this are ignored as garbled; also the lower clamp. Default 0.5. */
  minRatio?: number;
  /** Ratios above this are ignored as garbled; also the upper clamp. Default 4. */
  maxRatio?: number;
  /** Requests estimated below this many tokens are ignored (fixed provider overheads dominate). Default 64. */
  minEstimated?: number;
  /** Models tracked at most; the least recently observed one is forgotten beyond. Default 64. */
  maxModels?: number;
}

const DEFAULTS = { window: 32, margin: 0.02, minRatio: 0.5, maxRatio: 4, minEstimated: 64, maxModels: 64 } as const;

type Settings = { -readonly [K in keyof typeof DEFAULTS]: number };

function settings(options: UsageCalibratorOptions): Settings {
  if (options === null || typeof options !== 'object') throw new ValidationError('createUsageCalibrator: options must be an object');
  const s: Settings = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as (keyof Settings)[]) {
    const v = (options as Record<string, unknown>)[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new ValidationError(`createUsageCalibrator: options.${key} must be a finite number`, [key]);
    s[key] = v;
  }
  if (!Number.isInteger(s.window) || s.window < 1) throw new ValidationError('createUsageCalibrator: options.window must be a positive integer', ['window']);
  if (!Number.isInteger(s.maxModels) || s.maxModels < 1) throw new ValidationError('createUsageCalibrator: options.maxModels must be a positive integer', ['maxModels']);
  if (s.margin < 0 || s.margin >= 1) throw new ValidationError('createUsageCalibrator: options.margin must be in [0, 1)', ['margin']);
  if (!(s.minRatio > 0) || !(s.maxRatio >= s.minRatio)) throw new ValidationError('createUsageCalibrator: options need 0 < minRatio <= maxRatio', ['minRatio']);
  if (s.minEstimated < 0) throw new ValidationError('createUsageCalibrator: options.minEstimated must be >= 0', ['minEstimated']);
  return s;
}

class WindowCalibrator implements UsageCalibrator {
  // Insertion order of the Map is the recency order (re-inserted on observe), for the LRU cap.
  readonly #ratios = new Map<string, number[]>();

  constructor(readonly settings: Settings) {}

  observe(observation: UsageObservation): boolean {
    const { model, estimated, actual } = observation ?? ({} as UsageObservation);
    if (typeof model !== 'string' || typeof estimated !== 'number' || typeof actual !== 'number') return false;
    if (!Number.isFinite(estimated) || !Number.isFinite(actual) || actual <= 0 || estimated <= 0 || estimated < this.settings.minEstimated) return false;
    const r = actual / estimated;
    if (r < this.settings.minRatio || r > this.settings.maxRatio) return false;
    this.#push(model, r);
    return true;
  }

  #push(model: string, r: number): void {
    const list = this.#ratios.get(model) ?? [];
    this.#ratios.delete(model);
    list.push(r);
    if (list.length > this.settings.window) list.splice(0, list.length - this.settings.window);
    this.#ratios.set(model, list);
    while (this.#ratios.size > this.settings.maxModels) this.#ratios.delete(this.#ratios.keys().next().value as string);
  }

  ratio(model: string): number | null {
    const list = this.#ratios.get(model);
    if (list === undefined || list.length === 0) return null;
    let max = 0;
    for (const r of list) if (r > max) max = r;
    // Kept ratios are within [minRatio, maxRatio] (observe and restore check), so this is bounded.
    return max * (1 + this.settings.margin);
  }

  calibrate(model: string, estimated: number): number {
    if (!Number.isFinite(estimated) || estimated <= 0) return estimated;
    const r = this.ratio(model);
    // Before any observation the estimate stands: the governor behaves as without a calibrator.
    return r === null ? estimated : Math.ceil(estimated * r);
  }

  toJSON(): UsageCalibratorState {
    const models: Record<string, number[]> = {};
    for (const [model, list] of this.#ratios) models[model] = [...list];
    return { version: 1, models };
  }

  restore(state: UsageCalibratorState): void {
    for (const [model, list] of Object.entries(state.models)) for (const r of list) this.#push(model, r);
  }
}

/**
 * A calibrator with no I/O: per model it keeps the ratios actual ÷ estimated of the last `window`
 * usable observations and calibrates as
 *
 *     calibrate(model, e) = ⌈e × R × (1 + margin)⌉
 *
 * where R is the largest kept ratio (so the factor is bounded by `maxRatio × (1 + margin)`); before the model's first observation it returns `e`
 * unchanged. Taking the largest recent ratio (not a mean) makes it prefer over-counting: a
 * request that compresses better than usual never lowers the count for the next ones.
 *
 * The guarantee (property-tested): let R be the largest ratio among a model's last `window`
 * observations. For a next request whose ratio r = actual ÷ estimated satisfies
 * r ≤ R × (1 + margin) ÷ (1 − margin) — in particular whenever the ratio grows by at most that
 * factor (≈ 1 + 2·margin) from one observed request to the next — `calibrate(model, estimated)` ≥
 * actual × (1 − margin): it under-counts by at most `margin`; and when r ≤ R × (1 + margin) it
 * does not under-count at all. Ratios inside `[minRatio, maxRatio]` are assumed (others are
 * ignored). Throws {@link ValidationError} for unusable options.
 */
export function createUsageCalibrator(options: UsageCalibratorOptions = {}): UsageCalibrator {
  return new WindowCalibrator(settings(options));
}

/**
 * Restores a calibrator from {@link UsageCalibrator.toJSON} output (the value or its JSON text).
 * Throws {@link ValidationError} for anything else (wrong version, a non-numeric or out-of-bounds
 * ratio); a failed restore changes nothing, so the caller can keep the calibrator it has.
 */
export function usageCalibratorFromJSON(json: unknown, options: UsageCalibratorOptions = {}): UsageCalibrator {
  const s = settings(options);
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json) as unknown;
    } catch (error) {
      throw new ValidationError(`usageCalibratorFromJSON: not JSON (${error instanceof Error ? error.message : String(error)})`, [], { cause: error });
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ValidationError('usageCalibratorFromJSON: state must be an object');
  const v = value as Record<string, unknown>;
  if (v.version !== 1) throw new ValidationError(`usageCalibratorFromJSON: unknown state version ${JSON.stringify(v.version)}`, ['version']);
  const models = v.models;
  if (models === null || typeof models !== 'object' || Array.isArray(models)) throw new ValidationError('usageCalibratorFromJSON: models must be an object', ['models']);
  const clean: Record<string, number[]> = {};
  for (const [model, list] of Object.entries(models as Record<string, unknown>)) {
    if (!Array.isArray(list)) throw new ValidationError(`usageCalibratorFromJSON: models[${JSON.stringify(model)}] must be an array of ratios`, ['models', model]);
    list.forEach((r: unknown, i) => {
      if (typeof r !== 'number' || !Number.isFinite(r) || r < s.minRatio || r > s.maxRatio) {
        throw new ValidationError(`usageCalibratorFromJSON: models[${JSON.stringify(model)}][${i}] must be a ratio in [${s.minRatio}, ${s.maxRatio}]`, ['models', model, i]);
      }
    });
    clean[model] = list as number[];
  }
  const calibrator = new WindowCalibrator(s);
  calibrator.restore({ version: 1, models: clean });
  return calibrator;
}
