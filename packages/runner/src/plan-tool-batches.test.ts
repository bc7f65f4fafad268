import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planToolBatches } from './plan-tool-batches.js';

describe('planToolBatches', () => {
  it('keeps call order, batches only consecutive safe calls, isolates the rest (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 40 }), fc.boolean(), (safe, concurrent) => {
        const input = Object.freeze([...safe]);
        const batches = planToolBatches(input, (s) => s, concurrent);
        expect(batches.flat()).toEqual(safe.map((_, i) => i));
        for (const batch of batches) {
          if (batch.length > 1) expect(batch.every((i) => safe[i]) && concurrent).toBe(true);
          if (batch.some((i) => !safe[i])) expect(batch).toHaveLength(1);
        }
        if (!concurrent) expect(batches.every((b) => b.length === 1)).toBe(true);
        // Two neighbouring batches are never both multi-call-able safe runs (maximal batches).
        for (let k = 1; k < batches.length; k += 1) {
          const prevSafe = batches[k - 1].every((i) => safe[i]);
          const curSafe = batches[k].every((i) => safe[i]);
          if (concurrent) expect(prevSafe && curSafe).toBe(false);
        }
      }),
    );
  });

  it('groups read, read, write, read as [[0,1],[2],[3]]', () => {
    expect(planToolBatches(['r', 'r', 'w', 'r'], (c) => c === 'r', true)).toEqual([[0, 1], [2], [3]]);
  });
});
