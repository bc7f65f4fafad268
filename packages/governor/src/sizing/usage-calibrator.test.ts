import fc from 'fast-check';
import { ValidationError } from '@nanobot/schema';
import { describe, expect, it } from 'vitest';
import { createUsageCalibrator, usageCalibratorFromJSON } from './usage-calibrator.js';

describe('createUsageCalibrator', () => {
  it('returns the estimate unchanged before the first observation', () => {
    const c = createUsageCalibrator();
    expect(c.ratio('m')).toBeNull();
    expect(c.calibrate('m', 1000)).toBe(1000);
  });

  it('follows the largest recent ratio plus the margin, per model', () => {
    const c = createUsageCalibrator({ margin: 0.02 });
    expect(c.observe({ model: 'a', estimated: 1000, actual: 1300 })).toBe(true);
    expect(c.observe({ model: 'a', estimated: 1000, actual: 1200 })).toBe(true);
    expect(c.observe({ model: 'b', estimated: 1000, actual: 900 })).toBe(true);
    expect(c.ratio('a')).toBeCloseTo(1.3 * 1.02, 12);
    expect(c.calibrate('a', 10_000)).toBe(Math.ceil(10_000 * 1.3 * 1.02));
    expect(c.calibrate('b', 10_000)).toBe(Math.ceil(10_000 * 0.9 * 1.02));
    expect(c.calibrate('c', 10_000)).toBe(10_000);
  });

  it('forgets ratios older than the window', () => {
    const c = createUsageCalibrator({ window: 3, margin: 0 });
    c.observe({ model: 'm', estimated: 1000, actual: 2000 });
    for (let i = 0; i < 3; i++) c.observe({ model: 'm', estimated: 1000, actual: 1100 });
    expect(c.ratio('m')).toBeCloseTo(1.1, 12);
  });

  it('ignores missing, tiny and garbled observations', () => {
    const c = createUsageCalibrator();
    const bad = [
      { model: 'm', estimated: 1000, actual: 0 },
      { model: 'm', estimated: 0, actual: 1000 },
      { model: 'm', estimated: 10, actual: 30 },
      { model: 'm', estimated: 1000, actual: Number.NaN },
      { model: 'm', estimated: 1000, actual: 50_000 },
      { model: 'm', estimated: 1000, actual: 100 },
    ];
    for (const o of bad) expect(c.observe(o)).toBe(false);
    expect(c.ratio('m')).toBeNull();
    expect(c.toJSON()).toEqual({ version: 1, models: {} });
  });

  it('keeps at most maxModels models, forgetting the least recently observed', () => {
    const c = createUsageCalibrator({ maxModels: 2 });
    c.observe({ model: 'a', estimated: 1000, actual: 1100 });
    c.observe({ model: 'b', estimated: 1000, actual: 1100 });
    c.observe({ model: 'a', estimated: 1000, actual: 1100 });
    c.observe({ model: 'c', estimated: 1000, actual: 1100 });
    expect(Object.keys(c.toJSON().models).sort()).toEqual(['a', 'c']);
  });

  it('rejects unusable options', () => {
    expect(() => createUsageCalibrator({ window: 0 })).toThrow(ValidationError);
    expect(() => createUsageCalibrator({ margin: 1 })).toThrow(ValidationError);
    expect(() => createUsageCalibrator({ minRatio: 2, maxRatio: 1 })).toThrow(ValidationError);
    expect(() => createUsageCalibrator({ window: Number.NaN })).toThrow(ValidationError);
  });
});

describe('usageCalibratorFromJSON', () => {
  it('round-trips the state (value and JSON text)', () => {
    const c = createUsageCalibrator();
    c.observe({ model: 'a', estimated: 1000, actual: 1234 });
    c.observe({ model: 'b', estimated: 2000, actual: 1900 });
    const back = usageCalibratorFromJSON(JSON.stringify(c));
    expect(back.toJSON()).toEqual(c.toJSON());
    expect(back.calibrate('a', 5000)).toBe(c.calibrate('a', 5000));
    expect(usageCalibratorFromJSON(c.toJSON()).calibrate('b', 777)).toBe(c.calibrate('b', 777));
  });

  it('keeps only the newest window ratios of a larger state', () => {
    const back = usageCalibratorFromJSON({ version: 1, models: { m: [2, 1.1, 1.2] } }, { window: 2, margin: 0 });
    expect(back.ratio('m')).toBeCloseTo(1.2, 12);
  });

  it('rejects bad state with a ValidationError and leaves the existing calibrator alone', () => {
    const c = createUsageCalibrator();
    c.observe({ model: 'a', estimated: 1000, actual: 1300 });
    const before = JSON.stringify(c.toJSON());
    const bad: unknown[] = [
      '{not json',
      null,
      [],
      { version: 2, models: {} },
      { version: 1 },
      { version: 1, models: { a: 'x' } },
      { version: 1, models: { a: [1.1, 'x'] } },
      { version: 1, models: { a: [1000] } },
      { version: 1, models: { a: [Number.NaN] } },
    ];
    for (const b of bad) expect(() => usageCalibratorFromJSON(b)).toThrow(ValidationError);
    expect(JSON.stringify(c.toJSON())).toBe(before);
    expect(c.calibrate('a', 1000)).toBe(Math.ceil(1000 * 1.3 * 1.02));
  });
});

// A session: the ratio actual ÷ estimated starts anywhere in [0.7, 2] and changes by a bounded
// factor from one request to the next (rounding down to whole tokens keeps it within the bound);
// estimates vary freely (history grows, gets snipped).
const session = (maxStep: (margin: number) => number) =>
  fc.record({
    start: fc.double({ min: 0.7, max: 2, noNaN: true }),
    steps: fc.array(fc.record({ step: fc.double({ min: -1, max: 1, noNaN: true }), estimated: fc.integer({ min: 64, max: 200_000 }) }), { minLength: 2, maxLength: 80 }),
    margin: fc.double({ min: 0, max: 0.1, noNaN: true }),
    window: fc.integer({ min: 1, max: 40 }),
  }).map(({ start, steps, margin, window }) => {
    let r = start;
    const requests = steps.map(({ step, estimated }) => {
      const next = r * (1 + maxStep(margin) * step);
      const actual = Math.floor(estimated * (next < 0.6 || next > 3.5 ? r : next));
      r = actual / estimated;
      return { estimated, actual };
    });
    return { margin, window, requests };
  });

describe('the calibration guarantee (property)', () => {
  it('never under-counts by more than the margin while the ratio grows by at most (1 + m) / (1 − m) − 1 per request', () => {
    fc.assert(
      fc.property(session((m) => (1 + m) / (1 - m) - 1), ({ margin, window, requests }) => {
        const c = createUsageCalibrator({ margin, window });
        requests.forEach((req, i) => {
          const calibrated = c.calibrate('m', req.estimated);
          if (i > 0) expect(calibrated).toBeGreaterThanOrEqual(req.actual * (1 - margin));
          c.observe({ model: 'm', ...req });
        });
      }),
      { numRuns: 300 },
    );
  });

  it('never under-counts at all while the ratio grows by at most the margin per request', () => {
    fc.assert(
      fc.property(session((m) => m), ({ margin, window, requests }) => {
        const c = createUsageCalibrator({ margin, window });
        requests.forEach((req, i) => {
          const calibrated = c.calibrate('m', req.estimated);
          if (i > 0) expect(calibrated).toBeGreaterThanOrEqual(req.actual);
          c.observe({ model: 'm', ...req });
        });
      }),
      { numRuns: 300 },
    );
  });

  it('the bound is tight: a jump beyond it under-counts by more than the margin', () => {
    const c = createUsageCalibrator({ margin: 0.02 });
    c.observe({ model: 'm', estimated: 10_000, actual: 10_000 });
    const bound = (1.02 / 0.98) * 1.001;
    const actual = Math.round(10_000 * bound);
    expect(c.calibrate('m', 10_000)).toBeLessThan(actual * 0.98);
    // …and the next request has learnt it.
    c.observe({ model: 'm', estimated: 10_000, actual });
    expect(c.calibrate('m', 10_000)).toBeGreaterThanOrEqual(actual);
  });

  it('is non-decreasing in the estimate (what govern relies on)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.5, max: 4, noNaN: true }), { maxLength: 10 }), fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 0, max: 1e6 }), (ratios, a, b) => {
        const c = createUsageCalibrator();
        for (const r of ratios) c.observe({ model: 'm', estimated: 10_000, actual: Math.round(10_000 * r) });
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(c.calibrate('m', lo)).toBeLessThanOrEqual(c.calibrate('m', hi));
      }),
    );
  });
});
