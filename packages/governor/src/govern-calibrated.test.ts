import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEstimator, ValidationError, type Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { govern } from './govern.js';
import { createUsageCalibrator } from './sizing/usage-calibrator.js';

// What govern counts with by default (the provider view in cl100k).
const estimatePromptTokens = (messages: readonly Message[]): number => createEstimator().promptTokens(messages)[0];

// Whole turns of similar size, so the kept tail grows or shrinks with the budget.
function history(turns: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are terse.' }];
  for (let i = 0; i < turns; i++) {
    out.push({ role: 'user', content: `question ${i}: ${'lorem ipsum dolor sit amet '.repeat(20)}` });
    out.push({ role: 'assistant', content: `answer ${i}: ${'consectetur adipiscing elit '.repeat(20)}` });
  }
  out.push({ role: 'user', content: 'and now?' });
  return out;
}

const options = { contextWindowTokens: 6000, maxOutputTokens: 1000, model: 'm', cuts: 'tightest' as const };

describe('govern with a calibrator', () => {
  it('sizes by the calibrated count: a model billing 1.3× the estimate keeps correspondingly less', () => {
    const h = deepFreeze(history(40));
    const calibrator = createUsageCalibrator({ margin: 0.02 });
    const plain = govern(h, options);
    for (let i = 0; i < 3; i++) calibrator.observe({ model: 'm', estimated: 4000, actual: 5200 });
    const calibrated = govern(h, { ...options, calibrator });
    const r = calibrated.report;
    expect(r.inputBudget).toBe(plain.report.budget);
    expect(r.tokensEstimated).toBe(r.tokensAfter);
    expect(r.tokensEstimated).toBeLessThanOrEqual(r.budget);
    expect(r.tokensCalibrated).toBe(calibrator.calibrate('m', r.tokensEstimated!));
    expect(r.tokensCalibrated).toBeLessThanOrEqual(r.inputBudget!);
    expect(r.fits).toBe(true);
    // The copy fits by the count the provider would bill (1.3× the estimate).
    expect(1.3 * estimatePromptTokens(calibrated.messages)).toBeLessThanOrEqual(r.inputBudget!);
    expect(1.3 * estimatePromptTokens(plain.messages)).toBeGreaterThan(plain.report.budget);
    expect(calibrated.messages.length).toBeLessThan(plain.messages.length);
    // And the longest whole-turn tail: one more turn would not fit by the calibrated count.
    const next = h.indexOf(calibrated.messages[1]) - 2;
    const longer = [h[0], ...h.slice(next)];
    expect(calibrator.calibrate('m', estimatePromptTokens(longer))).toBeGreaterThan(r.inputBudget!);
  });

  it('a model that bills less than the estimate keeps more history', () => {
    const h = deepFreeze(history(40));
    const calibrator = createUsageCalibrator({ margin: 0 });
    calibrator.observe({ model: 'm', estimated: 4000, actual: 3200 });
    const plain = govern(h, options);
    const calibrated = govern(h, { ...options, calibrator });
    expect(calibrated.messages.length).toBeGreaterThan(plain.messages.length);
    expect(calibrated.report.tokensCalibrated).toBeLessThanOrEqual(calibrated.report.inputBudget!);
  });

  it('changes nothing before the first observation, or without a model', () => {
    const h = deepFreeze(history(40));
    const calibrator = createUsageCalibrator();
    const plain = govern(h, options);
    const cold = govern(h, { ...options, calibrator });
    expect(cold.messages).toEqual(plain.messages);
    expect(cold.report.budget).toBe(plain.report.budget);
    expect(cold.report.tokensCalibrated).toBe(cold.report.tokensEstimated);
    calibrator.observe({ model: 'm', estimated: 4000, actual: 5200 });
    const noModel = govern(h, { contextWindowTokens: 6000, maxOutputTokens: 1000, cuts: 'tightest', calibrator });
    expect(noModel.messages).toEqual(plain.messages);
    expect(noModel.report.tokensCalibrated).toBeUndefined();
  });

  it('rejects a calibrator without calibrate() and one that returns no number', () => {
    expect(() => govern([], { calibrator: {} as never })).toThrow(ValidationError);
    expect(() => govern([], { model: 7 as never })).toThrow(ValidationError);
    expect(() => govern(history(2), { ...options, calibrator: { calibrate: () => Number.NaN } })).toThrow(/calibrate returned NaN/);
  });

  it('property: whatever was observed, a copy that fits fits by its calibrated count', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.5, max: 3, noNaN: true }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 2500, max: 20_000 }),
        (ratios, turns, window) => {
          const calibrator = createUsageCalibrator();
          for (const r of ratios) calibrator.observe({ model: 'm', estimated: 10_000, actual: Math.round(10_000 * r) });
          const { messages, report } = govern(deepFreeze(history(turns)), { contextWindowTokens: window, maxOutputTokens: 500, model: 'm', calibrator });
          expect(report.tokensEstimated).toBe(estimatePromptTokens(messages));
          if (report.fits) expect(report.tokensCalibrated).toBeLessThanOrEqual(report.inputBudget!);
          else expect(report.tokensCalibrated).toBeGreaterThan(report.inputBudget!);
        },
      ),
      { numRuns: 60 },
    );
  });
});
