import { describe, expect, it } from 'vitest';
import { createEstimator, ValidationError, type Message } from '@nanobot/schema';
import { checkLegality } from '../../check-legality.js';
import type { CutPlan } from './cut-plan.js';
import { govern, type GovernOptions, type GovernResult } from '../../govern.js';
import { promptTokens } from '../../sizing/estimate.js';
import { deepFreeze } from '@nanobot-internal/test-support';

// What govern counts with by default (the provider view in cl100k).
const COUNT = { estimator: createEstimator() };

const WORDS = 'we agreed to keep the rollout gradual and watch the error budget closely while the team reviews'.split(' ');
const filler = (seed: number, n: number) => Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * 3) % WORDS.length]).join(' ');

/** A system prompt and `turns` user turns, each with one tool step and an answer. */
function session(turns: number, prefix = 'Turn'): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are nanobot.' }];
  for (let t = 0; t < turns; t++) {
    out.push(
      { role: 'user', content: `${prefix} ${t}: ${filler(t, 20)}` },
      { role: 'assistant', content: 'Looking.', tool_calls: [{ id: `c${t}`, type: 'function', function: { name: 'lookup', arguments: `{"t": ${t}}` } }] },
      { role: 'tool', tool_call_id: `c${t}`, name: 'lookup', content: filler(t + 1, 80) },
      { role: 'assistant', content: `Answer ${t}: ${filler(t + 2, 40)}` },
    );
  }
  return deepFreeze(out);
}

const options: GovernOptions = { contextWindowTokens: 2600, maxOutputTokens: 0 };
const budget = 2600 - 1024;
const ask = (history: Message[], text: string): Message[] => deepFreeze([...history, { role: 'user', content: text }]);

describe('cut plans', () => {
  it('re-applies a plan to a history re-built from storage (new objects, extra metadata)', () => {
    const first = govern(ask(session(12), 'next?'), options);
    expect(first.cutPlan).not.toBeNull();
    expect(first.report.cut).toMatchObject({ reused: false });
    expect(first.report.cut!.removed).toBeGreaterThan(0);
    // Loaded from storage: fresh objects with timestamps, one more exchange appended.
    const loaded = structuredClone(ask(session(12), 'next?')).map((m) => ({ ...m, timestamp: '2026-01-01T00:00:00Z' })) as Message[];
    const grown = deepFreeze([...loaded, { role: 'assistant', content: 'Sure.' }, { role: 'user', content: 'and then?' }] as Message[]);
    const second = govern(grown, { ...options, cutPlan: JSON.parse(JSON.stringify(first.cutPlan)) as CutPlan });
    expect(second.report.cut).toEqual({ ...first.report.cut!, reused: true });
    const strip = (list: readonly Message[]) => list.map(({ timestamp: _t, ...m }) => m);
    expect(strip(second.messages).slice(0, first.messages.length)).toEqual(strip(first.messages));
  });

  it('reports where the history starts in the copy', () => {
    const history = ask(session(12), 'next?');
    const r = govern(history, options);
    const cut = r.report.cut!;
    expect(r.messages[cut.index]).toBe(history[cut.removed + 1]);
    expect(r.messages.slice(0, cut.index).every((m) => m.role === 'system')).toBe(true);
    expect(govern(session(2), options).report.cut).toEqual({ index: 1, removed: 0, reused: false });
    expect(govern(session(2), {}).report.cut).toBeUndefined();
  });

  it('follows the plan when the front of the history was archived since', () => {
    const history = ask(session(12), 'next?');
    const first = govern(history, options);
    // Two old turns archived (consolidated) between requests: positions shift by 8.
    const archived = deepFreeze([history[0], ...history.slice(9)]);
    const second = govern(archived, { ...options, cutPlan: first.cutPlan });
    expect(second.report.cut!.reused).toBe(true);
    expect(second.messages).toEqual(first.messages);
  });

  it('ignores a plan that does not match: an edited history, another session', () => {
    const history = ask(session(12), 'next?');
    const first = govern(history, options);
    const plain = (h: Message[]) => govern(h, options).messages;
    // The message just before the cut was edited: the plan no longer describes this history.
    const at = first.report.cut!.removed;
    const edited = deepFreeze(history.map((m, i) => (i === at ? { ...m, content: `${String(m.content)} (edited)` } : m)));
    const e = govern(edited, { ...options, cutPlan: first.cutPlan });
    expect(e.report.cut!.reused).toBe(false);
    expect(e.messages).toEqual(plain(edited));
    // Another session's plan: nothing in this history matches it.
    const other = ask(session(12, 'Other'), 'else?');
    const o = govern(other, { ...options, cutPlan: first.cutPlan });
    expect(o.report.cut!.reused).toBe(false);
    expect(o.messages).toEqual(plain(other));
    for (const r of [e, o]) {
      expect(checkLegality(r.messages, { target: 'any' })).toEqual([]);
      expect(promptTokens(r.messages, COUNT)).toBeLessThanOrEqual(budget);
    }
  });

  it('cuts again, later, once the history behind the plan no longer fits', () => {
    let history = ask(session(12), 'next?');
    let plan = govern(history, options).cutPlan!;
    let moved = 0;
    for (let t = 0; t < 12; t++) {
      history = deepFreeze([...history, { role: 'assistant', content: filler(t, 60) }, { role: 'user', content: `more ${t}` }]);
      const r = govern(history, { ...options, cutPlan: plan });
      expect(promptTokens(r.messages, COUNT)).toBeLessThanOrEqual(budget);
      if (!r.report.cut!.reused) {
        moved++;
        expect(r.cutPlan!.start).toBeGreaterThan(plan.start);
      }
      plan = r.cutPlan!;
    }
    // In steps: far fewer moves than requests.
    expect(moved).toBeGreaterThan(0);
    expect(moved).toBeLessThan(6);
  });

  it('compat reference and cuts tightest ignore the plan and return none', () => {
    const history = ask(session(12), 'next?');
    const plan = govern(history, options).cutPlan;
    for (const extra of [{ compat: 'reference' as const }, { cuts: 'tightest' as const }]) {
      const withPlan = govern(history, { ...options, ...extra, cutPlan: plan });
      expect(withPlan.messages).toEqual(govern(history, { ...options, ...extra }).messages);
      expect(withPlan.cutPlan).toBeNull();
      expect(withPlan.report.cut!.reused).toBe(false);
    }
  });

  it('inside one long tool loop, cuts among its steps in steps, the user message kept in front', () => {
    const messages: Message[] = [{ role: 'system', content: 'You are nanobot.' }, { role: 'user', content: 'Fix the build.' }];
    let plan: CutPlan | null = null;
    let cuts = 0;
    let requests = 0;
    for (let i = 0; i < 80; i++) {
      messages.push(
        { role: 'assistant', content: `Step ${i}.`, tool_calls: [{ id: `s${i}`, type: 'function', function: { name: 'lookup', arguments: `{"i": ${i}}` } }] },
        { role: 'tool', tool_call_id: `s${i}`, name: 'lookup', content: filler(i, 60) },
      );
      const r: GovernResult = govern(deepFreeze([...messages]), { ...options, cutPlan: plan, inflightStartIndex: 2 });
      if (r.report.cut!.removed === 0) continue;
      requests++;
      if (!r.report.cut!.reused) cuts++;
      // The user message first, then a legal run of the newest steps.
      expect(r.messages[r.report.cut!.index]).toBe(messages[1]);
      expect(r.messages[r.report.cut!.index + 1].role).toBe('assistant');
      expect(r.report.cut!.removed).toBe(messages.length - r.messages.length);
      expect(promptTokens(r.messages, COUNT)).toBeLessThanOrEqual(budget);
      expect(checkLegality(r.messages, { target: 'any' })).toEqual([]);
      plan = r.cutPlan;
      expect(plan!.anchor).toBe(0);
    }
    expect(requests).toBeGreaterThan(50);
    expect(cuts).toBeLessThan(requests / 4);
  });

  it('rejects a malformed plan or cut option with a clear ValidationError', () => {
    const history = session(2);
    const good = { version: 1, start: 4, anchor: 4, fingerprint: 'abc:def' };
    const bad: [unknown, RegExp][] = [
      ['plan', /cutPlan must be null or a plan returned by govern.*got string/],
      [[1], /got an array/],
      [{ ...good, version: 2 }, /unknown version 2/],
      [{ ...good, start: -1 }, /start must be a non-negative integer, got -1/],
      [{ ...good, anchor: 1.5 }, /anchor must be a non-negative integer/],
      [{ ...good, anchor: 5 }, /anchor must be at most start/],
      [{ ...good, fingerprint: 7 }, /fingerprint must be two fingerprints/],
      [{ ...good, serverAnchor: 4 }, /serverAnchor must be a non-negative integer below start, got 4/],
      [{ ...good, serverAnchor: '1' }, /serverAnchor must be a non-negative integer below start/],
    ];
    for (const [cutPlan, message] of bad) {
      expect(() => govern(history, { ...options, cutPlan: cutPlan as CutPlan })).toThrow(ValidationError);
      expect(() => govern(history, { ...options, cutPlan: cutPlan as CutPlan })).toThrow(message);
    }
    expect(() => govern(history, { ...options, cuts: 'loose' as 'stable' })).toThrow(/options.cuts must be 'stable' or 'tightest', got "loose"/);
    for (const cutTargetRatio of [0, 1.5, Number.NaN]) {
      expect(() => govern(history, { ...options, cutTargetRatio })).toThrow(/cutTargetRatio must be a number in \(0, 1\]/);
    }
    expect(govern(history, { ...options, cutPlan: good as CutPlan, cutTargetRatio: 1 }).report.cut!.reused).toBe(false);
    expect(() => govern(history, { ...options, cutPlan: { ...good, serverAnchor: 2 } as CutPlan })).not.toThrow();
  });
});
