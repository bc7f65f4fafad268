// The pipeline's declarations hold for every list (fast-check): a step declared a no-op on clean
// lists returns its input for every structurally clean list (so the clean fast path can never
// skip a step that would have changed something), a step declared to keep lists clean keeps
// them clean, and no step does what it does not declare (drop, insert, rewrite, merge, reorder).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { PIPELINE } from './pipeline.js';
import { structureScan } from './steps/repair/structure-scan.js';
import { resolveCall } from './step-context.js';
import type { GovernStep } from './steps/step.js';
import { GOVERN_TARGETS, type GovernTarget } from './steps/target/govern-target.js';
import { arbitraryBudget, arbitraryCleanHistory, arbitraryHistory } from './test-support/arbitrary-history.js';
import type { GovernOptions } from './govern-options.js';

const clean = (list: readonly Message[]): boolean => structureScan(list).clean;

const options: fc.Arbitrary<GovernOptions> = fc.record({
  budget: arbitraryBudget,
  target: fc.constantFrom<GovernTarget | undefined>(undefined, ...GOVERN_TARGETS),
  compat: fc.constantFrom<'fixed' | 'reference' | undefined>(undefined, 'reference'),
  keep: fc.option(fc.nat(3), { nil: undefined }),
}).map(({ budget, target, compat, keep }) => {
  const o: GovernOptions = { ...budget };
  if (target !== undefined) o.target = target;
  if (compat !== undefined) o.compat = compat;
  if (keep !== undefined) o.keepRecentCompactableResults = keep;
  return o;
});

/** Runs `step` on `list` as govern would, when it runs at all for these options. */
function run(step: GovernStep, list: readonly Message[], given: GovernOptions): Message[] | null {
  const { ctx } = resolveCall(list, given);
  return step.runs(ctx, list) ? step.run(list, ctx).messages : null;
}

const steps = [...new Set(PIPELINE)];

describe('the pipeline table', () => {
  it('lists every step of the report in the order GovernStepName gives', () => {
    const names = PIPELINE.map((s) => s.name);
    expect(names.slice(0, 6)).toEqual(['stripPlaceholderAssistantMessages', 'stripMalformedToolCalls', 'repairToolCallIds', 'dropOrphanToolResults', 'regroupToolResults', 'backfillMissingToolResults']);
    expect(names.slice(6)).toEqual(['legalizeForTarget', 'applyToolResultBudget', 'microcompactKeepRecent', 'compactInflightOverflow', 'shortenNewestResults', 'snipHistory', 'dropOrphanToolResults', 'backfillMissingToolResults', 'enforceRoleAlternation', 'enforceRoleAlternation', 'separateToolResultsFromUser', 'placeholderThoughtSignatures', 'currentTurnReasoning', 'shrinkToFit']);
  });

  it('the clean generator makes clean lists, some with an open tail (the tests below can fail)', () => {
    let open = 0;
    fc.assert(fc.property(arbitraryCleanHistory, (h) => {
      expect(clean(h)).toBe(true);
      if (structureScan(h).openTail !== null) open++;
    }), { numRuns: 200 });
    expect(open).toBeGreaterThan(0);
  });

  describe.each(steps.filter((s) => s.noopOnClean).map((s) => [s.name, s] as const))('%s (declared a no-op on clean lists)', (_name, step) => {
    it('returns its input for every clean list', () => {
      fc.assert(fc.property(fc.oneof(arbitraryCleanHistory, arbitraryHistory), options, (history, given) => {
        fc.pre(clean(history));
        const list = deepFreeze(history);
        const out = run(step, list, given);
        if (out !== null) expect(out).toBe(list);
      }), { numRuns: 400 });
    });
  });

  describe.each(steps.map((s) => [s.name, s] as const))('%s', (_name, step) => {
    it('keeps a clean list clean when it declares so, and does only what it declares', () => {
      fc.assert(fc.property(fc.oneof(arbitraryCleanHistory, arbitraryHistory), options, (history, given) => {
        const list = deepFreeze(history);
        const out = run(step, list, given);
        if (out === null) return;
        if (step.keepsClean && clean(list)) expect(clean(out)).toBe(true);
        const may = new Set(step.may);
        const input = new Set<Message>(list);
        if (!may.has('insert') && !may.has('rewrite') && !may.has('merge')) expect(out.every((m) => input.has(m))).toBe(true);
        if (!may.has('insert')) expect(out.length).toBeLessThanOrEqual(list.length);
        if (!may.has('drop') && !may.has('merge')) expect(out.length).toBeGreaterThanOrEqual(list.length);
        if (!may.has('reorder')) {
          // Messages kept from the input keep their order.
          const at = new Map<Message, number>(list.map((m, i) => [m, i]));
          const kept = out.filter((m) => at.has(m)).map((m) => at.get(m)!);
          expect(kept).toEqual([...kept].sort((a, b) => a - b));
        }
      }), { numRuns: 250 });
    });
  });
});
