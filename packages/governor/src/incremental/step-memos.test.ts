import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { enforceRoleAlternationDetailed } from '../steps/target/enforce-role-alternation.js';
import { govern } from '../govern.js';
import type { GovernTarget } from '../steps/target/govern-target.js';
import { legalizeForTarget } from '../steps/target/legalize-for-target.js';
import { arbitraryHistory } from '../test-support/arbitrary-history.js';
import { alternationWithReport } from './alternation-memo.js';
import { legalizeWithReport } from './legalize-memo.js';
import { ListSnapshot } from './list-snapshot.js';
import { ref } from '../report/reported-message.js';

function plainAlternation(messages: readonly Message[]) {
  const alt = enforceRoleAlternationDetailed(messages);
  return {
    messages: alt.messages,
    removed: alt.removed.map((r) => ({ ...ref(messages[r.index], r.index), reason: r.reason })),
    added: alt.added.map((a) => ({ ...ref(alt.messages[a.index], a.index), reason: a.reason })),
  };
}

function plainLegalization(messages: readonly Message[], target: GovernTarget) {
  const legal = legalizeForTarget(messages, { target });
  return {
    messages: legal.messages,
    removed: legal.changes.map((c) => ({ ...ref(messages[c.index], c.index), reason: c.reason })),
    added: legal.changes.flatMap((c) => (c.to === null ? [] : [{ ...ref(legal.messages[c.to], c.to), reason: c.reason }])),
  };
}

function expectSame(got: { messages: Message[]; removed: unknown[]; added: unknown[] }, want: { messages: Message[]; removed: unknown[]; added: unknown[] }, input: readonly Message[]): void {
  expect(got.messages === input).toBe(want.messages === input);
  expect(got.messages.length).toBe(want.messages.length);
  expect(got.messages).toEqual(want.messages);
  // Kept messages are the input objects (rewritten ones are remembered per object, except the
  // user turn made of a popped one, which the plain step builds anew each time).
  const kept = new Set(input);
  got.messages.forEach((m, i) => { if (kept.has(want.messages[i])) expect(m).toBe(want.messages[i]); });
  expect(got.removed).toEqual(want.removed);
  expect(got.added).toEqual(want.added);
}

/**
 * The lists a runner (or a careless caller) governs one after the other on one history: longer
 * and shorter prefixes, the same list again, a copy with one message replaced.
 */
const sessions = fc.record({
  history: arbitraryHistory,
  steps: fc.array(fc.record({ end: fc.nat(), replace: fc.option(fc.nat(), { nil: undefined }) }), { minLength: 1, maxLength: 8 }),
});

function lists(history: Message[], steps: { end: number; replace: number | undefined }[]): Message[][] {
  const out: Message[][] = [];
  for (const s of steps) {
    const list = history.slice(0, history.length === 0 ? 0 : 1 + (s.end % history.length));
    if (s.replace !== undefined && list.length > 1) {
      const at = 1 + (s.replace % (list.length - 1));
      list[at] = deepFreeze({ ...list[at] });
    }
    out.push(list);
  }
  return out;
}

describe('per-history step memos', () => {
  it('role alternation resumed from the last call equals the plain step', () => {
    fc.assert(
      fc.property(sessions, ({ history, steps }) => {
        const frozen = deepFreeze(history);
        for (const list of lists(frozen, steps)) expectSame(alternationWithReport(list), plainAlternation(list), list);
      }),
      { numRuns: 300 },
    );
  });

  it('legalization resumed from the last call equals the plain step for every target', () => {
    fc.assert(
      fc.property(sessions, fc.constantFrom<GovernTarget>('any', 'openai', 'anthropic'), ({ history, steps }, target) => {
        const frozen = deepFreeze(history);
        for (const list of lists(frozen, steps)) expectSame(legalizeWithReport(list, target), plainLegalization(list, target), list);
      }),
      { numRuns: 300 },
    );
  });

  it('a growing history of merged turns and an opener resumes with the same result', () => {
    const history: Message[] = deepFreeze([
      { role: 'system', content: 'sys' },
      { role: 'assistant', content: 'hello' },
      { role: 'assistant', content: 'again' },
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'c' },
      { role: 'assistant', content: 'd' },
      { role: 'user', content: 'e' },
    ]);
    for (let n = 1; n <= history.length; n++) {
      const list = history.slice(0, n);
      expectSame(alternationWithReport(list), plainAlternation(list), list);
      expectSame(alternationWithReport(list), plainAlternation(list), list);
    }
  });

  it('govern hands out a new output array each call (the caller may keep or change it)', () => {
    const list: Message[] = deepFreeze([{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }, { role: 'developer', content: ' ' }, { role: 'user', content: 'c' }]);
    const first = govern(list).messages;
    const want = JSON.stringify(first);
    first.push({ role: 'assistant', content: 'changed by the caller' });
    first[0] = { role: 'user', content: 'replaced' };
    const second = govern(list).messages;
    expect(second).not.toBe(first);
    expect(JSON.stringify(second)).toBe(want);
    const open: Message[] = deepFreeze([{ role: 'user', content: 'a' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'exec', arguments: '{}' } }] }]);
    const withFill = govern(open).messages;
    withFill.length = 0;
    expect(govern(open).messages).toHaveLength(3);
  });
});

describe('govern memos and a caller that changes its own list between calls', () => {
  it('sees a message replaced, added or removed in the same array', () => {
    fc.assert(
      fc.property(arbitraryHistory, fc.nat(), fc.constantFrom<GovernTarget>('any', 'openai'), (history, seed, target) => {
        const list: Message[] = [...deepFreeze(history)];
        if (list.length < 2) return;
        const options = { target, contextWindowTokens: 100_000 };
        govern(list, options);
        govern(list, options);
        const at = 1 + (seed % (list.length - 1));
        const edits = [
          () => { list[at] = deepFreeze({ role: 'user', content: `replaced ${seed}` }); },
          () => { list.push(deepFreeze({ role: 'assistant', content: 'appended' })); },
          () => { list.splice(at, 1); },
        ];
        edits[seed % edits.length]();
        const got = govern(list, options);
        const want = govern(JSON.parse(JSON.stringify(list)) as Message[], options);
        expect(JSON.stringify(got.messages)).toBe(JSON.stringify(want.messages));
        expect(JSON.stringify(got.report)).toBe(JSON.stringify(want.report));
      }),
      { numRuns: 200 },
    );
  });
});

describe('ListSnapshot', () => {
  it('tracks the list it was updated with, by identity, without keeping the caller array', () => {
    const a = { role: 'user', content: 'a' } as Message;
    const b = { role: 'assistant', content: 'b' } as Message;
    const list = [a, b];
    const snap = new ListSnapshot();
    snap.update(list, 0);
    list.push({ role: 'user', content: 'c' });
    expect(snap.length).toBe(2);
    expect(snap.commonPrefix(list)).toBe(2);
    expect(snap.equals(list)).toBe(false);
    snap.update(list, 2);
    expect(snap.equals(list)).toBe(true);
    expect(snap.commonPrefix([a, { ...b }])).toBe(1);
  });
});
