import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEstimator, estimatePromptTokens, type Message, type TokenCounter } from '@nanobot/schema';
import { checkLegality } from '../../check-legality.js';
import type { CutPlan } from './cut-plan.js';
import { findLegalMessageStart } from './find-legal-message-start.js';
import { govern, type GovernResult } from '../../govern.js';
import { promptTokens } from '../../sizing/estimate.js';
import { snipHistory } from './snip-history.js';
import { deepFreeze, runs } from '@nanobot-internal/test-support';

// What govern counts with by default (the provider view in cl100k).
const COUNT = { estimator: createEstimator() };

const WORDS = 'alpha beta gamma delta rollout budget error dashboard review closely gradual watch'.split(' ');
const text = (seed: number, n: number) => Array.from({ length: n }, (_, i) => WORDS[(seed * 5 + i * 7) % WORDS.length]).join(' ');

/** One user turn: the user message, `steps` tool steps (call + result), the final answer. */
interface TurnShape { user: number; steps: number[]; answer: number }
const turnShape = fc.record({
  user: fc.integer({ min: 3, max: 60 }),
  steps: fc.array(fc.integer({ min: 5, max: 300 }), { maxLength: 6 }),
  answer: fc.integer({ min: 3, max: 200 }),
});

// `lookup` is not a compactable tool: only snipping changes these histories.
function turnMessages(t: TurnShape, k: number): Message[] {
  const out: Message[] = [{ role: 'user', content: `Turn ${k}: ${text(k, t.user)}` }];
  t.steps.forEach((size, j) => {
    const id = `call_${k}_${j}`;
    out.push(
      { role: 'assistant', content: `Checking ${j}.`, tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: `{"q": "${k}.${j}"}` } }] },
      { role: 'tool', tool_call_id: id, name: 'lookup', content: text(k + j, size) },
    );
  });
  out.push({ role: 'assistant', content: `Answer ${k}: ${text(k + 3, t.answer)}` });
  return out;
}

/** Request points of a session: every prefix that ends right before an assistant message. */
function requestEnds(messages: readonly Message[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < messages.length; i++) if (messages[i].role === 'assistant') out.push(i);
  return out;
}

const json = (list: readonly Message[]) => list.map((m) => JSON.stringify(m));

describe('stable cuts', () => {
  it('appending what still fits behind the cut never changes anything before it', () => {
    fc.assert(
      fc.property(fc.array(turnShape, { minLength: 2, maxLength: 9 }), fc.integer({ min: 700, max: 3000 }), fc.boolean(), (turns, window, rebuild) => {
        const session = deepFreeze([{ role: 'system', content: 'You are a careful agent.' }, ...turns.flatMap((t, k) => turnMessages(t, k))] as Message[]);
        const options = { contextWindowTokens: window, maxOutputTokens: 0 };
        const budget = window - 1024;
        let plan: CutPlan | null = null;
        let previous: { out: Message[]; end: number } | null = null;
        for (const end of requestEnds(session)) {
          // A runner that reloads the session from storage between requests has new objects.
          const prefix: Message[] = deepFreeze(rebuild ? structuredClone(session.slice(0, end)) : session.slice(0, end));
          const lastUser = prefix.findLastIndex((m) => m.role === 'user');
          const r: GovernResult = govern(prefix, { ...options, cutPlan: plan, inflightStartIndex: lastUser + 1 });
          if (previous !== null && plan !== null) {
            // The previous copy plus what was appended since, when that fits, is the copy.
            const grown = [...previous.out, ...prefix.slice(previous.end)];
            if (promptTokens(grown, COUNT) <= budget) {
              expect(json(r.messages)).toEqual(json(grown));
              expect(r.report.cut!.reused).toBe(true);
            }
          }
          if (r.report.fits) expect(promptTokens(r.messages, COUNT)).toBeLessThanOrEqual(budget);
          expect(checkLegality(r.messages, { target: 'any' })).toEqual([]);
          plan = r.cutPlan;
          expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
          previous = { out: r.messages, end };
        }
      }),
      { numRuns: runs(60, 600) },
    );
  });

  it('a fresh cut leaves room: the kept copy is within the target share of the room when one fits there', () => {
    fc.assert(
      fc.property(fc.array(turnShape, { minLength: 3, maxLength: 9 }), fc.integer({ min: 400, max: 2500 }), fc.constantFrom(0.4, 0.6, 0.8), (turns, budget, ratio) => {
        const messages = deepFreeze([{ role: 'system', content: 'sys' }, ...turns.flatMap((t, k) => turnMessages(t, k))] as Message[]);
        const r = snipHistory(messages, { budget, cutTargetRatio: ratio });
        if (r.removed.length === 0) return;
        const fixed = promptTokens([messages[0]], {});
        const target = fixed + Math.floor(ratio * (budget - fixed));
        const fitsTarget = r.tokensAfter! <= target;
        // Either the copy is within the target, or no candidate is: while the last turn fits
        // whole, no turn start down to it; else no step of its loop down to its user message.
        const lastUser = messages.findLastIndex((m) => m.role === 'user');
        const lastTurn = [messages[0], ...messages.slice(lastUser)];
        if (promptTokens(lastTurn, {}) <= budget) {
          // A whole-turn tail: a user message and everything after it.
          expect(r.messages[1].role).toBe('user');
          expect(r.messages.slice(1)).toEqual(messages.slice(messages.length - (r.messages.length - 1)));
          if (!fitsTarget) expect(promptTokens(lastTurn, {})).toBeGreaterThan(target);
          expect(r.tokensAfter!).toBeLessThanOrEqual(budget);
        } else if (!fitsTarget) {
          expect(promptTokens([messages[0], messages[lastUser]], {})).toBeGreaterThan(target);
        }
        expect(r.plan).not.toBeNull();
      }),
      { numRuns: runs(60, 600) },
    );
  });
});

/** A counter that disagrees with the estimate by a fixed factor (and counts its calls). */
function scaledCounter(factor: number): TokenCounter & { calls: number } {
  const counter = {
    calls: 0,
    countPromptTokens(messages: readonly Message[]): number {
      counter.calls++;
      return Math.max(1, Math.round(estimatePromptTokens(messages) * factor));
    },
  };
  return counter;
}

/** Every legal cut, longest first, by brute force: user starts, then steps of the last turn. */
function legalCopies(messages: readonly Message[]): Message[][] {
  const system = messages.filter((m) => m.role === 'system');
  const rest = messages.filter((m) => m.role !== 'system');
  const lastUser = rest.findLastIndex((m) => m.role === 'user');
  const out: Message[][] = [];
  for (let u = 0; u <= lastUser; u++) if (rest[u].role === 'user' && findLegalMessageStart(rest.slice(u)) === 0) out.push([...system, ...rest.slice(u)]);
  for (let a = lastUser + 1; a < rest.length; a++) {
    if (rest[a].role === 'assistant' && findLegalMessageStart(rest.slice(a)) === 0) out.push([...system, rest[lastUser], ...rest.slice(a)]);
  }
  if (rest.length > lastUser + 1) out.push([...system, rest[lastUser]]);
  return out;
}

describe('exact-counter sizing', () => {
  it('keeps the longest legal tail that fits by the counter (tightest), and a copy that fits by it (stable), in O(log n) counts', () => {
    fc.assert(
      fc.property(fc.array(turnShape, { minLength: 1, maxLength: 8 }), fc.integer({ min: 150, max: 6000 }), fc.constantFrom(0.5, 2, 1.3), (turns, budget, factor) => {
        const messages = deepFreeze([{ role: 'system', content: 'sys' }, ...turns.flatMap((t, k) => turnMessages(t, k))] as Message[]);
        const count = (list: readonly Message[]) => Math.max(1, Math.round(estimatePromptTokens(list) * factor));
        if (count(messages) <= budget) return;
        const copies = legalCopies(messages);
        const longest = copies.find((c) => count(c) <= budget);

        const tight = scaledCounter(factor);
        const t = snipHistory(messages, { budget, tokenCounter: tight, cuts: 'tightest' });
        if (longest !== undefined) expect(t.messages).toEqual(longest);
        else expect(t.messages).toEqual(copies[copies.length - 1]);
        expect(t.tokensAfter).toBe(count(t.messages));
        const bound = 2 * Math.ceil(Math.log2(copies.length + 1)) + 4;
        expect(tight.calls).toBeLessThanOrEqual(bound);

        const stableCounter = scaledCounter(factor);
        const s = snipHistory(messages, { budget, tokenCounter: stableCounter });
        if (longest !== undefined) expect(count(s.messages)).toBeLessThanOrEqual(budget);
        expect(copies.map((c) => JSON.stringify(c))).toContain(JSON.stringify(s.messages));
        expect(stableCounter.calls).toBeLessThanOrEqual(bound);
      }),
      { numRuns: runs(80, 800) },
    );
  });

  it('falls back to the estimate when the counter throws', () => {
    const turns: TurnShape[] = Array.from({ length: 6 }, (_, k) => ({ user: 10, steps: [120, 80], answer: 60 + k }));
    const messages = deepFreeze([{ role: 'system', content: 'sys' }, ...turns.flatMap((t, k) => turnMessages(t, k))] as Message[]);
    const throwing: TokenCounter = { countPromptTokens: () => { throw new Error('counter down'); } };
    const budget = 800;
    const r = snipHistory(messages, { budget, tokenCounter: throwing, cuts: 'tightest' });
    expect(r.messages).toEqual(legalCopies(messages).find((c) => promptTokens(c, {}) <= budget));
    expect(r.tokensAfter!).toBeLessThanOrEqual(budget);
  });
});
