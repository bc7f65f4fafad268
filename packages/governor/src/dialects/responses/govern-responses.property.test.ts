import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '@nanobot-internal/test-support';
import { MemoryArtifactStore } from '../../offload/memory-artifact-store.js';
import { arbitraryResponsesInput } from '../../test-support/arbitrary-dialect-histories.js';
import { arbitraryBudget, arbitraryHistory } from '../../test-support/arbitrary-history.js';
import { toResponsesInput } from '../../test-support/dialect-histories.js';
import { responsesRequestViolations } from '../../test-support/responses-request-rules.js';
import { governResponses } from './govern-responses.js';
import type { ResponsesItemLike } from './responses-types.js';

type Item = Record<string, unknown>;

describe('governResponses on valid native inputs', () => {
  it('gives back the very same items when nothing needs governing (lossless round trip)', () => {
    fc.assert(
      fc.property(arbitraryResponsesInput, (items) => {
        const input = deepFreeze(items);
        expect(responsesRequestViolations(input)).toEqual([]);
        const out = governResponses(input);
        expect(out.input.length).toBe(input.length);
        out.input.forEach((it, i) => expect(it).toBe(input[i]));
        expect(out.report.steps.filter((s) => s.changed)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('under a budget, keeps unchanged items as the same objects and each reasoning item right before the item it preceded', () => {
    fc.assert(
      fc.property(arbitraryResponsesInput, fc.integer({ min: 60, max: 1500 }), (items, budget) => {
        const input = deepFreeze(items);
        const out = governResponses(input, { contextWindowTokens: budget, contextBlockLimit: budget, maxToolResultChars: 30, artifactStore: new MemoryArtifactStore(), sessionKey: 's' });
        expect(responsesRequestViolations(out.input)).toEqual([]);
        const position = new Map<ResponsesItemLike, number>(input.map((it, i) => [it, i]));
        // Items sent as they were keep their input order.
        const kept = out.input.map((it) => position.get(it)).filter((i) => i !== undefined);
        expect(kept).toEqual([...kept].sort((a, b) => a - b));
        out.input.forEach((it, i) => {
          if ((it as Item).type !== 'reasoning') return;
          // The item after a reasoning item in the input (past other reasoning) is the one after it here.
          const at = position.get(it)!;
          let j = at + 1;
          while ((input[j] as Item | undefined)?.type === 'reasoning') j++;
          let k = i + 1;
          while ((out.input[k] as Item | undefined)?.type === 'reasoning') k++;
          const next = out.input[k] as Item;
          const want = input[j] as Item;
          expect(next === want || (next.type === want.type && next.call_id === want.call_id && next.id === want.id)).toBe(true);
        });
        // Outputs the governor rewrote keep their call_id; reasoning keeps its encrypted content.
        for (const it of out.input) if ((it as Item).type === 'reasoning') expect(position.has(it)).toBe(true);
      }),
      { numRuns: 120 },
    );
  });
});

describe('governResponses on damaged inputs', () => {
  it('always returns input the Responses API accepts, without touching the stored items', () => {
    fc.assert(
      fc.property(arbitraryHistory, arbitraryBudget, (history, budget) => {
        const stored = deepFreeze(toResponsesInput(history));
        fc.pre(stored.some((it) => (it as Item).role === 'user'));
        const snapshot = JSON.stringify(stored);
        const out = governResponses(stored, { ...budget, onOverflow: 'send' });
        expect(JSON.stringify(stored)).toBe(snapshot);
        expect(responsesRequestViolations(out.input)).toEqual([]);
        expect(JSON.parse(JSON.stringify(out.report))).toEqual(out.report);
      }),
      { numRuns: 300 },
    );
  });
});

describe('governResponses on a growing history', () => {
  it('gives the same input as a cold call on a copy, whatever was governed before', () => {
    fc.assert(
      fc.property(arbitraryHistory, arbitraryBudget, fc.array(fc.nat(30), { maxLength: 4 }), (history, budget, cuts) => {
        const stored = deepFreeze(toResponsesInput(history));
        fc.pre(stored.length > 0);
        const options = { ...budget, onOverflow: 'send' as const };
        for (const cut of cuts) governResponses(stored.slice(0, 1 + (cut % stored.length)), options);
        governResponses(stored, options);
        const warm = governResponses(stored, options);
        const cold = governResponses(structuredClone(stored), options);
        expect(warm.input).toEqual(cold.input);
        expect(warm.report).toEqual(cold.report);
      }),
      { numRuns: 150 },
    );
  });
});
