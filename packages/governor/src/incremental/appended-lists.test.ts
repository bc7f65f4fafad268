// The backfilled list of a history whose last turn's calls are still open (a runner's request
// while its tools run), handed again as it is: the Governor compares the history once per call
// (its input comparison), and the appended list is recognised from that comparison. Its copy
// was stamped only when first made before, so every later call with the same history passed
// over all of it a second time.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Message } from '@nanobot/schema';
import { mixedFamilyHistory } from '@nanobot-internal/test-support';
import { createGovernor } from '../governor.js';
import { GOVERN_TARGETS } from '../steps/target/govern-target.js';
import { ListSnapshot } from './list-snapshot.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Counts comparisons of a kept copy with a list that were not known beforehand and read past the first 100 slots. */
function countPasses(): { passes: number } {
  const seen = { passes: 0 };
  const compare = ListSnapshot.prototype.commonPrefix;
  vi.spyOn(ListSnapshot.prototype, 'commonPrefix').mockImplementation(function (this: ListSnapshot, list: readonly Message[]) {
    const known = this.knownPrefix(list) >= 0;
    const k = compare.call(this, list);
    if (!known && k > 100) seen.passes++;
    return k;
  });
  return seen;
}

/** The longest prefix of `history` (at most `max` messages) that ends with an assistant turn whose calls have no results yet. */
function openTailed(history: readonly Message[], max: number): Message[] {
  for (let n = Math.min(max, history.length); n > 0; n--) {
    const last = history[n - 1];
    if (last.role === 'assistant' && Array.isArray(last.tool_calls) && last.tool_calls.length > 0) return history.slice(0, n);
  }
  throw new Error('no open-tailed prefix');
}

describe('the appended list of an open tail', () => {
  it.each(GOVERN_TARGETS)('the same history again is passed over once per call (%s)', (target) => {
    const history = openTailed(mixedFamilyHistory(1_600, 7) as Message[], 1_600);
    const governor = createGovernor();
    const options = { target, contextWindowTokens: 2_000_000, maxOutputTokens: 4096 };
    const first = governor.govern(history, options);
    // The open calls' results are backfilled (what this case is about).
    expect(first.report.steps.some((s) => s.step === 'backfillMissingToolResults' && s.added.length > 0)).toBe(true);
    governor.govern(history, options);
    const seen = countPasses();
    for (let i = 0; i < 5; i++) {
      const before = seen.passes;
      expect(governor.govern(history, options).messages).toEqual(first.messages);
      expect(seen.passes - before).toBe(1);
    }
  });
});
