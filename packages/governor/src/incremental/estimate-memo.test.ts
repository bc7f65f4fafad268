// The estimate memo on a growing history: it finds a list's closest known estimate without
// passing over the history more than once per list, and the caller's list (which the input
// comparison vouches for) without any pass. Before, the caller's list was compared with each
// memo list kept from the last call first, and a list grown from an entry nothing vouches for
// was compared with it three times (finding the closest entry, the entry it replaces, the
// copy's update): four to five passes over the history per request where one is needed.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Message, TokenEstimator } from '@nanobot/schema';
import { mixedFamilyHistory, requestPoints } from '@nanobot-internal/test-support';
import { createGovernor } from '../governor.js';
import { GOVERN_TARGETS } from '../steps/target/govern-target.js';
import { KnownEstimates } from './estimate-memo.js';
import { ListSnapshot } from './list-snapshot.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Per estimate the memo makes, the passes over the history it made: comparisons of a kept copy
 * with the list that were not known beforehand and read past the first 100 slots.
 */
function passesPerEstimate(): { lists: (readonly Message[])[]; passes: number[] } {
  const seen = { lists: [] as (readonly Message[])[], passes: [] as number[] };
  let current = -1;
  const compare = ListSnapshot.prototype.commonPrefix;
  vi.spyOn(ListSnapshot.prototype, 'commonPrefix').mockImplementation(function (this: ListSnapshot, list: readonly Message[]) {
    const k = compare.call(this, list);
    if (current >= 0 && this.knownPrefix(list) < 0 && k > 100) seen.passes[current]++;
    return k;
  });
  const estimate = KnownEstimates.prototype.estimate;
  vi.spyOn(KnownEstimates.prototype, 'estimate').mockImplementation(function (this: KnownEstimates, messages: readonly Message[], tools: readonly object[] | null, estimator: TokenEstimator | null, compute: () => number) {
    current = seen.lists.push(messages) - 1;
    seen.passes.push(0);
    try {
      return estimate.call(this, messages, tools, estimator, compute);
    } finally {
      current = -1;
    }
  });
  return seen;
}

describe('the estimate memo on a growing history', () => {
  // Salt 3's session opens with an assistant turn, so targets that want the user first get a
  // new copy each call (a list no memo vouches for).
  it.each(GOVERN_TARGETS)('passes over the history at most once per list, never for the caller\'s (%s)', (target) => {
    const history = mixedFamilyHistory(1_600, 3) as Message[];
    const governor = createGovernor();
    const seen = passesPerEstimate();
    let estimates = 0;
    for (const [i, n] of requestPoints(history, 999).slice(0, 30).entries()) {
      const input = history.slice(0, n);
      const from = seen.lists.length;
      governor.govern(input, { target, contextWindowTokens: 2_000_000, maxOutputTokens: 4096 });
      if (i < 2) continue;
      for (let e = from; e < seen.lists.length; e++) {
        estimates++;
        expect(seen.passes[e]).toBeLessThanOrEqual(seen.lists[e] === input ? 0 : 1);
      }
    }
    expect(estimates).toBeGreaterThan(28);
  });
});
