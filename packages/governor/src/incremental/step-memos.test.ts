// Every memo of the incremental layer against the plain step it resumes (fast-check): over the
// lists a runner (or a careless caller) governs one after the other on one history — longer and
// shorter prefixes, the same list again, a copy with one message replaced, an equal copy rebuilt
// from JSON — the memo's outcome equals the plain step's, and a Governor with memos returns
// exactly what one without returns, call by call.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEstimator, toolTraitsTable, type Message, type TokenEstimator, type TokenizerName } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { govern, governWith } from '../govern.js';
import type { GovernOptions, GovernResult } from '../govern-options.js';
import { MemoryArtifactStore } from '../offload/memory-artifact-store.js';
import { structureScan } from '../steps/repair/structure-scan.js';
import { backfillMissingToolResults } from '../steps/repair/backfill-missing-tool-results.js';
import { applyToolResultBudgetDetailed } from '../steps/size/apply-tool-result-budget.js';
import { alternationWithEntries } from '../steps/target/enforce-role-alternation.js';
import { GOVERN_TARGETS, type GovernTarget } from '../steps/target/govern-target.js';
import { legalizeWithEntries } from '../steps/target/legalize-for-target.js';
import { arbitraryBudget, arbitraryCleanHistory, arbitraryHistory } from '../test-support/arbitrary-history.js';
import { CallClock } from './call-clock.js';
import { KnownEstimates } from './estimate-memo.js';
import { ListSnapshot } from './list-snapshot.js';
import { GovernorMemos } from './memo-store.js';
import { backfillOpenTail } from './tail-backfill.js';
import { resolveCall } from '../step-context.js';
import { snipHistoryStep } from '../steps/cut/snip-history.js';
import { diff } from '../report/step-recorder.js';
import { compactInflightOutcome, compactInflightOverflowStep, scanToolResults } from '../steps/size/compact-inflight-overflow.js';
import { createGovernor } from '../governor.js';

function expectSame(got: { messages: Message[]; removed: unknown[]; added: unknown[] }, want: { messages: Message[]; removed: unknown[]; added: unknown[] }, input: readonly Message[]): void {
  expect(got.messages === input).toBe(want.messages === input);
  expect(got.messages.length).toBe(want.messages.length);
  expect(got.messages).toEqual(want.messages);
  // Kept messages are the input objects.
  const kept = new Set(input);
  got.messages.forEach((m, i) => { if (kept.has(want.messages[i])) expect(m).toBe(want.messages[i]); });
  expect(got.removed).toEqual(want.removed);
  expect(got.added).toEqual(want.added);
}

/**
 * The lists a runner (or a careless caller) governs one after the other on one history: longer
 * and shorter prefixes, the same list again, a copy with one message replaced, an equal copy.
 */
const sessions = fc.record({
  history: arbitraryHistory,
  steps: fc.array(fc.record({ end: fc.nat(), replace: fc.option(fc.nat(), { nil: undefined }), rebuild: fc.boolean() }), { minLength: 1, maxLength: 8 }),
});

function lists(history: Message[], steps: { end: number; replace: number | undefined; rebuild: boolean }[]): Message[][] {
  const out: Message[][] = [];
  for (const s of steps) {
    let list = history.slice(0, history.length === 0 ? 0 : 1 + (s.end % history.length));
    if (s.replace !== undefined && list.length > 1) {
      const at = 1 + (s.replace % (list.length - 1));
      list[at] = deepFreeze({ ...list[at] });
    }
    if (s.rebuild) list = deepFreeze(JSON.parse(JSON.stringify(list)) as Message[]);
    out.push(list);
  }
  return out;
}

describe('per-history step memos', () => {
  it('role alternation lists a merged turn that grows or shrinks between calls as it is now', () => {
    // The last turn's entry is made again when more is merged into it, or less after a cut back
    // (its preview changes: the merged text is short).
    const base = deepFreeze<Message[]>([{ role: 'system', content: 's' }, { role: 'user', content: 'a' }, { role: 'user', content: 'b' }]);
    const grown = deepFreeze<Message[]>([...base, { role: 'user', content: 'c' }]);
    const memos = new GovernorMemos();
    for (const list of [base, grown, base, grown, grown.slice(0, 3)]) expectSame(memos.alternation.run(list), alternationWithEntries(list), list);
  });

  it('role alternation rewound into a merged turn gives back the merge it made before, the same object', () => {
    const base = deepFreeze<Message[]>([{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }]);
    const grown = deepFreeze<Message[]>([...base, { role: 'user', content: 'c' }, { role: 'assistant', content: 'x' }, { role: 'user', content: 'd' }]);
    const memos = new GovernorMemos();
    const merged = memos.alternation.run(base).messages[0];
    expect(memos.alternation.run(grown).messages[0]).not.toBe(merged);
    expect(memos.alternation.run(base).messages[0]).toBe(merged);
  });

  it('role alternation lists, when its report is read after later calls rewound and changed the fold, what its call merged', () => {
    // The removal entries are made when a list is read, from the memo's input copy: a later call
    // that rewinds the fold makes the entries it cuts first, while the copy still holds them.
    const base = deepFreeze<Message[]>([{ role: 'system', content: 's' }, { role: 'user', content: 'a' }, { role: 'user', content: 'b' }, { role: 'assistant', content: 'x' }, { role: 'user', content: 'c' }, { role: 'user', content: 'd' }]);
    const other = deepFreeze<Message[]>([base[0], base[1], { role: 'assistant', content: 'y' }, { role: 'user', content: 'e' }, { role: 'user', content: 'f' }, { role: 'user', content: 'g' }]);
    const memos = new GovernorMemos();
    const first = memos.alternation.run(base);
    const second = memos.alternation.run(other);
    memos.alternation.run(base.slice(0, 3));
    for (const [got, list] of [[first, base], [second, other]] as const) {
      const want = alternationWithEntries(list);
      expect(got.removed).toEqual(want.removed);
      expect(got.added).toEqual(want.added);
    }
  });

  it('role alternation resumed from the last call equals the plain step', () => {
    fc.assert(
      fc.property(sessions, ({ history, steps }) => {
        const memos = new GovernorMemos();
        for (const list of lists(deepFreeze(history), steps)) expectSame(memos.alternation.run(list), alternationWithEntries(list), list);
      }),
      { numRuns: 300 },
    );
  });

  it('legalization resumed from the last call equals the plain step for every target', () => {
    fc.assert(
      fc.property(sessions, fc.constantFrom<GovernTarget>(...GOVERN_TARGETS), ({ history, steps }, target) => {
        const memos = new GovernorMemos();
        for (const list of lists(deepFreeze(history), steps)) expectSame(memos.legalize.run(list, target), legalizeWithEntries(list, target), list);
      }),
      { numRuns: 300 },
    );
  });

  it('the structure scan resumed from the last call equals the plain scan', () => {
    fc.assert(
      fc.property(sessions, ({ history, steps }) => {
        const memos = new GovernorMemos();
        for (const list of lists(deepFreeze(history), steps)) expect(memos.scans.scan(list)).toEqual(structureScan(list));
      }),
      { numRuns: 300 },
    );
  });

  it('the result budget resumed from the last call equals the plain step, offloads included', () => {
    fc.assert(
      fc.property(sessions, fc.constantFrom(200, 800, 16_000), fc.boolean(), ({ history, steps }, max, withStore) => {
        const memos = new GovernorMemos();
        const store = withStore ? new MemoryArtifactStore() : null;
        for (const list of lists(deepFreeze(history), steps)) {
          const options = { maxToolResultChars: max, artifactStore: store, sessionKey: 's' };
          const got = memos.budgets.run(list, options);
          const want = applyToolResultBudgetDetailed(list, options);
          expect(got.messages === list).toBe(want.messages === list);
          expect(got.messages).toEqual(want.messages);
          expect(got.changes).toEqual(want.changes);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('the open-tail backfill equals the plain backfill on clean lists', () => {
    fc.assert(
      fc.property(arbitraryCleanHistory, (history) => {
        const memos = new GovernorMemos();
        const list = deepFreeze(history);
        const scan = structureScan(list);
        if (scan.openTail === null) return;
        for (let i = 0; i < 2; i++) {
          const got = backfillOpenTail(list, scan.openTail, memos.derive, memos.appended);
          expect(got.messages).toEqual(backfillMissingToolResults(list));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('estimates kept from earlier calls equal fresh ones', () => {
    fc.assert(
      fc.property(sessions, ({ history, steps }) => {
        const memos = new GovernorMemos();
        for (const list of lists(deepFreeze(history), steps)) {
          if (list.length === 0) continue;
          const fresh = governWith(null, list, { estimateTokens: true });
          const kept = governWith(memos, list, { estimateTokens: true });
          expect(kept.report.tokensBefore).toBe(fresh.report.tokensBefore);
          expect(kept.report.tokensAfter).toBe(fresh.report.tokensAfter);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('an unseen list is estimated from the closest known one (schema provider estimators) as a fresh estimate would', () => {
    let resumed = 0;
    fc.assert(
      fc.property(sessions, fc.constantFrom<TokenizerName>('cl100k_base', 'o200k_base', 'claude'), fc.boolean(), ({ history, steps }, tokenizer, withTools) => {
        const estimator = createEstimator({ tokenizer });
        const tools = withTools ? [{ type: 'function', function: { name: 'exec', description: 'run', parameters: { type: 'object', properties: {} } } }] : null;
        const known = new KnownEstimates(new CallClock());
        const all = lists(deepFreeze(history), steps);
        // The copies a govern call estimates besides its input: one result rewritten, the cut
        // copy (the first message and a tail), the list cut short.
        for (const list of all.flatMap((l) => [l, l.map((m, i) => (i === l.length - 1 && m.role === 'tool' ? { ...m, content: 'compacted' } : m)), [l[0], ...l.slice(Math.floor(l.length / 2))], l.slice(0, -1)])) {
          if (list.length === 0) continue;
          let computed = false;
          const want = estimator.promptTokens(list, tools)[0];
          expect(known.estimate(list, tools, estimator, () => { computed = true; return want; })).toBe(want);
          if (!computed) resumed++;
        }
        // An estimator of the caller's own is never assumed additive: its lists are computed.
        const own: TokenEstimator = { mode: 'provider', tokenizer, promptTokens: (m, t) => estimator.promptTokens(m, t), messageTokens: (m) => estimator.messageTokens(m), toolsTokens: (t) => estimator.toolsTokens(t) };
        const fresh = all.find((l) => l.length > 0);
        if (fresh !== undefined) {
          let computed = false;
          known.estimate([...fresh, { role: 'user', content: 'new' }], tools, own, () => { computed = true; return 0; });
          expect(computed).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
    expect(resumed).toBeGreaterThan(0);
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
    const memos = new GovernorMemos();
    for (let n = 1; n <= history.length; n++) {
      const list = history.slice(0, n);
      expectSame(memos.alternation.run(list), alternationWithEntries(list), list);
      expectSame(memos.alternation.run(list), alternationWithEntries(list), list);
    }
  });

  it('the output with an opener is kept in step in place: one list across calls, equal to the plain step, results handed out unchanged', () => {
    // A history whose first turn is an assistant's, grown, merged into, cut back and grown on
    // differently: the memo's list is brought in step each call instead of copied (a copy per
    // call was ~80 KB that later memos kept alive into the old generation).
    const turns: Message[] = deepFreeze([
      { role: 'system', content: 'sys' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'assistant', content: 'c' },
      { role: 'user', content: 'd' },
      { role: 'user', content: 'e' },
      { role: 'assistant', content: 'f' },
      { role: 'user', content: 'g' },
    ]);
    const other: Message[] = deepFreeze([{ role: 'user', content: 'x' }, { role: 'assistant', content: 'y' }, { role: 'user', content: 'z' }]);
    const ends = [3, 5, 6, 7, 9, 9, 4, 9, 2, 6];
    const memos = new GovernorMemos();
    let handed: Message[] | null = null;
    for (const [k, end] of ends.entries()) {
      const list = k === 8 ? [...turns.slice(0, 5), ...other] : turns.slice(0, end);
      const got = memos.alternation.run(list);
      expectSame(got, alternationWithEntries(list), list);
      if (handed !== null && k > 0) expect(got.messages).toBe(handed);
      handed = got.messages;
    }
    // Through a Governor, for every strict-role target: each result equals a memo-less Governor's
    // and stays as it was when handed out.
    for (const target of ['anthropic', 'gemini', 'bedrock', 'mistral'] as const) {
      const withMemos = createGovernor({ target });
      const plain = createGovernor({ target, memos: false });
      const kept: [Message[], string][] = [];
      for (const [k, end] of ends.entries()) {
        const list = k === 8 ? [...turns.slice(0, 5), ...other] : turns.slice(0, end);
        const a = withMemos.govern(list).messages;
        expect(JSON.stringify(a)).toBe(JSON.stringify(plain.govern(list).messages));
        kept.push([a, JSON.stringify(a)]);
      }
      for (const [list, json] of kept) expect(JSON.stringify(list)).toBe(json);
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

describe('a Governor with memos against one without', () => {
  const options: fc.Arbitrary<GovernOptions> = fc.record({
    budget: arbitraryBudget,
    target: fc.constantFrom<GovernTarget | undefined>(undefined, 'any', 'openai', 'anthropic'),
    compat: fc.constantFrom<'fixed' | 'reference' | undefined>(undefined, undefined, 'reference'),
    keep: fc.option(fc.nat(3), { nil: undefined }),
    store: fc.boolean(),
  }).map(({ budget, target, compat, keep, store }) => {
    const o: GovernOptions = { ...budget };
    if (target !== undefined) o.target = target;
    if (compat !== undefined) o.compat = compat;
    if (keep !== undefined) o.keepRecentCompactableResults = keep;
    if (store) o.artifactStore = new MemoryArtifactStore();
    return o;
  });

  it('returns the same messages, report and cut plan call by call (plans and compacted ids threaded)', () => {
    fc.assert(
      fc.property(sessions, options, ({ history, steps }, given) => {
        const memos = new GovernorMemos();
        let planA: GovernOptions['cutPlan'] = null;
        let planB: GovernOptions['cutPlan'] = null;
        const idsA = new Set<string>();
        const idsB = new Set<string>();
        for (const list of lists(deepFreeze(history), steps)) {
          const a: GovernResult = governWith(memos, list, { ...given, cutPlan: planA, compactedToolCallIds: idsA });
          const b: GovernResult = governWith(null, list, { ...given, cutPlan: planB, compactedToolCallIds: idsB });
          expect(JSON.stringify(a.messages)).toBe(JSON.stringify(b.messages));
          expect(JSON.stringify(a.report)).toBe(JSON.stringify(b.report));
          expect(a.cutPlan).toEqual(b.cutPlan);
          expect([...idsA]).toEqual([...idsB]);
          expect(a.messages === list).toBe(b.messages === list);
          // Kept messages are the caller's objects, with memos too (rebuilt lists included).
          const input = new Set<Message>(list);
          b.messages.forEach((m, i) => { if (input.has(m)) expect(a.messages[i]).toBe(m); });
          planA = a.cutPlan;
          planB = b.cutPlan;
        }
      }),
      { numRuns: 300 },
    );
  });
  it('a history its repairs leave empty, after a call that compacted results, governs as without memos', () => {
    // Found by the property above (seed 69099155): the tool-result index was asked about an
    // empty list (a lone stray result, dropped) and had no first message to keep it under.
    const big = 'x = 1; '.repeat(400);
    const history: Message[] = deepFreeze([
      { role: 'tool', tool_call_id: 'ghost_0', name: 'exec', content: 'stray' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'read_file', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_0', name: 'read_file', content: big },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', name: 'read_file', content: big },
    ] as Message[]);
    const given: GovernOptions = { contextWindowTokens: 1300, maxOutputTokens: 0, maxToolResultChars: 200, inflightStartIndex: 0, compat: 'reference' };
    const memos = new GovernorMemos();
    const idsA = new Set<string>();
    const idsB = new Set<string>();
    for (const list of [history, history.slice(0, 1)]) {
      const a = governWith(memos, list, { ...given, compactedToolCallIds: idsA });
      const b = governWith(null, list, { ...given, compactedToolCallIds: idsB });
      expect(JSON.stringify(a.messages)).toBe(JSON.stringify(b.messages));
      expect(JSON.stringify(a.report)).toBe(JSON.stringify(b.report));
    }
    expect(idsA.size).toBeGreaterThan(0);
    expect([...idsA]).toEqual([...idsB]);
  });
});

describe('ListSnapshot', () => {
  it('tracks the list it was updated with, by identity, without keeping the caller array', () => {
    const a = { role: 'user', content: 'a' } as Message;
    const b = { role: 'assistant', content: 'b' } as Message;
    const list = [a, b];
    const snap = new ListSnapshot(new CallClock());
    snap.update(list, 0);
    list.push({ role: 'user', content: 'c' });
    expect(snap.length).toBe(2);
    expect(snap.commonPrefix(list)).toBe(2);
    expect(snap.equals(list)).toBe(false);
    snap.update(list, 2);
    expect(snap.equals(list)).toBe(true);
    expect(snap.commonPrefix([a, { ...b }])).toBe(1);
  });

  it('updated with shorter, longer and partly shared lists, holds exactly the last one', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.nat(6), { maxLength: 12 }), { minLength: 1, maxLength: 8 }), (shapes) => {
        const pool = Array.from({ length: 7 }, (_, i) => ({ role: 'user', content: String(i) }) as Message);
        const snap = new ListSnapshot(new CallClock());
        for (const shape of shapes) {
          const list = shape.map((i) => pool[i]);
          snap.update(list, snap.commonPrefix(list));
          expect(snap.length).toBe(list.length);
          expect(snap.equals(list)).toBe(true);
          for (let i = 0; i < list.length; i++) expect(snap.at(i)).toBe(list[i]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('finds the common prefix of lists past the cached size (compared by pointer) where the first slot differs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 16_000, max: 20_000 }), fc.nat(), fc.boolean(), (n, at, grow) => {
        const pool = Array.from({ length: 64 }, (_, i) => ({ role: 'user', content: String(i) }) as Message);
        const list = Array.from({ length: n }, (_, i) => pool[i % 64]);
        const snap = new ListSnapshot(new CallClock());
        snap.update(list, 0);
        const next = grow ? [...list, pool[0]] : list.slice();
        const k = at % (n + 1);
        if (k < n) next[k] = { ...next[k] };
        expect(snap.commonPrefix(next)).toBe(k);
        expect(snap.equals(next)).toBe(k === n && !grow);
      }),
      { numRuns: 40 },
    );
  });
});

describe('the snip memo', () => {
  /** The memo's outcome (when it answers) against the plain step's; returns whether it answered. */
  function sameSnip(memos: GovernorMemos, list: Message[], plan: GovernOptions['cutPlan'], window: number): { answered: boolean; plan: GovernOptions['cutPlan'] } {
    const { ctx } = resolveCall(list, { contextWindowTokens: window, maxOutputTokens: 0, cutPlan: plan });
    const want = snipHistoryStep.run(list, ctx);
    const got = memos.snips.run(list, ctx);
    if (got !== undefined) {
      expect(got.messages).toEqual(want.messages);
      got.messages.forEach((m, i) => expect(m).toBe(want.messages[i]));
      expect(got.removed).toEqual(want.removed ?? diff(list, want.messages).removed);
      expect(got.added).toEqual(want.added ?? diff(list, want.messages).added);
      expect(got.tokensBefore).toBe(want.tokensBefore);
      expect(got.tokensAfter).toBe(want.tokensAfter);
      expect(got.notes).toEqual(want.notes);
      expect(got.cut).toEqual(want.cut);
    }
    return { answered: got !== undefined, plan: want.cut?.plan ?? null };
  }

  it('re-applying the cut plan equals the plain snip step, whenever the memo answers', () => {
    let answered = 0;
    fc.assert(
      fc.property(arbitraryHistory, fc.integer({ min: 1300, max: 4000 }), fc.integer({ min: 1, max: 6 }), (history, window, grow) => {
        const h = deepFreeze(history);
        const memos = new GovernorMemos();
        let plan: GovernOptions['cutPlan'] = null;
        for (let end = 1; end <= h.length; end += grow) {
          const r = sameSnip(memos, h.slice(0, end), plan, window);
          if (r.answered) answered++;
          plan = r.plan;
        }
      }),
      { numRuns: 300 },
    );
    // The property is not vacuous: the memo re-applied plans in these runs.
    expect(answered).toBeGreaterThan(0);
  });

  it('equals the plain snip step on a growing history whose kept tail is edited between calls (an equal copy, a result whose call is missing, a turn whose calls are gone)', () => {
    let answered = 0;
    let resumed = 0;
    // Edits now and then, so the memo has a cut and a checked tail to resume most of the time.
    const edit = fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.record({ back: fc.nat(), kind: fc.constantFrom('copy', 'orphan', 'undeclare') }) },
    );
    const edits = fc.array(fc.record({ grow: fc.nat(4), edit }), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(arbitraryHistory, fc.integer({ min: 1300, max: 4000 }), edits, (history, window, steps) => {
        const h = deepFreeze(history);
        const memos = new GovernorMemos();
        let plan: GovernOptions['cutPlan'] = null;
        let end = 1;
        for (const { grow, edit } of steps) {
          end = Math.min(h.length, end + grow);
          const list = h.slice(0, end);
          if (edit !== undefined && list.length > 1) {
            // One of the newest messages (inside the kept tail), never the first: the next call
            // governs the unedited history again.
            // ('undeclare': one of the newest turns whose calls have results after them.)
            const turns = list.flatMap((m, i) => (i > 0 && i < list.length - 1 && Array.isArray(m.tool_calls) && m.tool_calls.length > 0 ? [i] : []));
            const at = edit.kind === 'undeclare' && turns.length > 0 ? turns[turns.length - 1 - (edit.back % Math.min(turns.length, 3))]
              : list.length - 1 - (edit.back % Math.min(list.length - 1, 8));
            const edited: Message = edit.kind === 'copy' ? { ...list[at] }
              : edit.kind === 'orphan' ? { role: 'tool', tool_call_id: `orphan_${at}`, name: 'exec', content: 'x' }
                // An assistant turn without its calls: the results after it lose their call.
                : { role: 'assistant', content: 'the calls are gone' };
            list[at] = deepFreeze(edited);
          }
          const r = sameSnip(memos, list, plan, window);
          if (r.answered) answered++;
          plan = r.plan;
        }
        resumed += memos.snips.resumedChecks;
      }),
      { numRuns: 300 },
    );
    // Not vacuous: the memo answered, and resumed a tail check from the last call's.
    expect(answered).toBeGreaterThan(0);
    expect(resumed).toBeGreaterThan(0);
  });
});

describe('the tool-result index', () => {
  it('locates results like a scan, and in-flight compaction through it equals the plain step', () => {
    const memos = new GovernorMemos();
    let located = 0;
    fc.assert(
      fc.property(sessions, arbitraryBudget, fc.array(fc.nat(), { maxLength: 6 }), ({ history, steps }, budget, picks) => {
        const mine = new GovernorMemos();
        for (const list of lists(deepFreeze(history), steps)) {
          // Ids the run "recorded": some of the list's result ids, and one it does not hold.
          const known = list.flatMap((m) => (m.role === 'tool' && typeof m.tool_call_id === 'string' ? [m.tool_call_id] : []));
          const ids = new Set(picks.map((p) => known[p % Math.max(1, known.length)]).filter((id) => id !== undefined));
          ids.add('not-in-the-list');
          const index = mine.toolResults.locator(list);
          expect(index.resultsOf(ids)).toEqual(scanToolResults(list).resultsOf(ids));
          const { ctx } = resolveCall(list, { ...budget, compactedToolCallIds: ids, inflightStartIndex: Math.floor(list.length / 2) });
          const want = compactInflightOverflowStep.run(list, ctx);
          const got = compactInflightOutcome(list, ctx, memos.toolResults.locator(list));
          expect(got.messages).toEqual(want.messages);
          got.messages.forEach((m, i) => expect(m).toEqual(want.messages[i]));
          expect(got.toolResults).toEqual(want.toolResults);
          expect(got.newlyCompacted).toEqual(want.newlyCompacted);
          expect(got.tokensBefore).toBe(want.tokensBefore);
          expect(got.tokensAfter).toBe(want.tokensAfter);
          located += mine.toolResults.hits > 0 ? 1 : 0;
        }
      }),
      { numRuns: 300 },
    );
    // Not vacuous: the index answered, and the Governor's pipeline asks it.
    expect(located).toBeGreaterThan(0);
    expect(memos.toolResults.hits).toBeGreaterThan(0);
  });
});

describe('in-flight compaction resumed (one list kept and updated in place)', () => {
  // As a runner declares its built-in tools (without traits nothing is compactable in the default mode).
  const toolTraits = toolTraitsTable([['read_file', { compactable: true }], ['exec', { compactable: true }], ['grep', { compactable: true }], ['mcp_git_status', { compactable: true }]]);
  it('equals the plain step call by call, recorded ids threaded, the kept list reused', () => {
    let own = 0;
    fc.assert(
      fc.property(sessions, arbitraryBudget, fc.array(fc.option(fc.nat(40), { nil: undefined }), { maxLength: 8 }), ({ history, steps }, budget, runs) => {
        const memos = new GovernorMemos();
        let ids = new Set<string>();
        let start = budget.inflightStartIndex;
        for (const [k, list] of lists(deepFreeze(history), steps).entries()) {
          // A new run starts now and then (later or earlier): its recorded ids are new, the
          // earlier compactions go.
          const next = runs[k];
          if (next !== undefined) {
            ids = new Set();
            start = next;
          }
          const { ctx } = resolveCall(list, { ...budget, inflightStartIndex: start, toolTraits, compactedToolCallIds: ids }, memos.derive, memos.estimates);
          const want = compactInflightOverflowStep.run(list, ctx);
          const outer = memos.clock.begin();
          let got;
          try {
            const listsOf = memos.compactions.listsFor(ctx.estimate);
            // The schema's estimators are additive: the memo counts by differences.
            expect(listsOf).not.toBeNull();
            got = compactInflightOutcome(list, ctx, memos.toolResults.locator(list), listsOf!);
          } finally {
            memos.clock.end(outer);
          }
          expect(got.messages === list).toBe(want.messages === list);
          expect(got.messages).toEqual(want.messages);
          expect(got.toolResults).toEqual(want.toolResults);
          expect(got.newlyCompacted).toEqual(want.newlyCompacted);
          expect(got.tokensBefore).toBe(want.tokensBefore);
          expect(got.tokensAfter).toBe(want.tokensAfter);
          // The entries read from the compacted stretch are the whole-list comparison's.
          if (got.messages !== list) {
            expect(got.removed).toEqual(diff(list, want.messages).removed);
            expect(got.added).toEqual(diff(list, want.messages).added);
            if (memos.clock.releasable(got.messages) !== got.messages) own++;
          }
          for (const id of want.newlyCompacted ?? []) ids.add(id);
        }
      }),
      { numRuns: 300 },
    );
    // Not vacuous: the memo handed out its own list.
    expect(own).toBeGreaterThan(0);
  });

  it('puts back the results an earlier run compacted when a new run no longer compacts them', () => {
    const big = (i: number) => `line ${i} of the output\n`.repeat(300);
    const call = (id: string): Message => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'exec', arguments: '{}' } }] });
    const result = (id: string, i: number): Message => ({ role: 'tool', tool_call_id: id, name: 'exec', content: big(i) });
    const list: Message[] = deepFreeze([
      { role: 'system', content: 'You are terse.' }, { role: 'user', content: 'go' },
      call('c1'), result('c1', 1), call('c2'), result('c2', 2), call('c3'), result('c3', 3), { role: 'user', content: 'and now?' },
    ]);
    const memos = new GovernorMemos();
    const outcome = (start: number) => {
      const { ctx } = resolveCall(list, { contextWindowTokens: 2600, maxOutputTokens: 0, toolTraits, inflightStartIndex: start, compactedToolCallIds: new Set() }, memos.derive, memos.estimates);
      const outer = memos.clock.begin();
      try {
        return { got: compactInflightOutcome(list, ctx, memos.toolResults.locator(list), memos.compactions.listsFor(ctx.estimate)!), want: compactInflightOverflowStep.run(list, ctx) };
      } finally {
        memos.clock.end(outer);
      }
    };
    const a = outcome(2);
    expect(a.want.newlyCompacted).toContain('c1');
    expect(a.got.messages).toEqual(a.want.messages);
    // The next run starts at c3: c1 and c2 are whole again.
    const b = outcome(6);
    expect(b.want.newlyCompacted).toEqual(['c3']);
    expect(b.got.messages).toEqual(b.want.messages);
    expect(b.got.messages[3]).toBe(list[3]);
  });

  it('a growing over-budget history governed with memos equals one without, messages replaced and rebuilt on the way', () => {
    let compacted = 0;
    fc.assert(
      fc.property(
        arbitraryHistory,
        fc.integer({ min: 1300, max: 5000 }),
        fc.array(fc.record({ grow: fc.integer({ min: 0, max: 4 }), replace: fc.option(fc.nat(), { nil: undefined }), rebuild: fc.boolean() }), { minLength: 2, maxLength: 10 }),
        (history, window, steps) => {
          const h = deepFreeze(history);
          const withMemos = createGovernor({ contextWindowTokens: window, maxOutputTokens: 0, toolTraits });
          const plain = createGovernor({ contextWindowTokens: window, maxOutputTokens: 0, toolTraits, memos: false });
          let end = Math.min(h.length, 2);
          for (const step of steps) {
            end = Math.min(h.length, end + step.grow);
            let list = h.slice(0, end);
            if (step.replace !== undefined && list.length > 1) {
              const at = 1 + (step.replace % (list.length - 1));
              list[at] = deepFreeze({ ...list[at] });
            }
            if (step.rebuild) list = deepFreeze(JSON.parse(JSON.stringify(list)) as Message[]);
            const a = withMemos.govern(list);
            const b = plain.govern(list);
            expect(JSON.stringify(a.messages)).toBe(JSON.stringify(b.messages));
            expect(JSON.stringify(a.report)).toBe(JSON.stringify(b.report));
            expect(a.cutPlan).toEqual(b.cutPlan);
            if (a.report.steps.some((s) => s.step === 'compactInflightOverflow' && s.changed)) compacted++;
          }
        },
      ),
      { numRuns: 200 },
    );
    expect(compacted).toBeGreaterThan(0);
  });
});

describe('the report\'s lists', () => {
  it('are frozen, and a Governor repeating a cut hands every report the same list of cut messages', () => {
    const history: Message[] = [{ role: 'system', content: 'You are terse.' }];
    for (let i = 0; i < 120; i++) {
      history.push({ role: 'user', content: `question ${i}: ${'word '.repeat(40)}` });
      history.push({ role: 'assistant', content: `answer ${i}: ${'word '.repeat(40)}` });
    }
    const governor = createGovernor({ contextWindowTokens: 3000, maxOutputTokens: 0 });
    const first = governor.govern(history.slice(0, 200));
    const second = governor.govern(history.slice(0, 202));
    const snipOf = (r: GovernResult) => r.report.steps.find((s) => s.step === 'snipHistory')!;
    expect(second.report.cut?.reused).toBe(true);
    expect(snipOf(second).removed.length).toBeGreaterThan(100);
    expect(snipOf(second).removed).toBe(snipOf(governor.govern(history.slice(0, 204))).removed);
    for (const r of [first, second, govern(history, { contextWindowTokens: 3000, maxOutputTokens: 0 })]) {
      for (const s of r.report.steps) {
        expect(Object.isFrozen(s.removed)).toBe(true);
        expect(Object.isFrozen(s.added)).toBe(true);
      }
    }
    expect(() => (snipOf(second).removed as unknown[]).push({})).toThrow(TypeError);
    // The rest of the report is the caller's.
    second.report.steps.push(snipOf(second));
    snipOf(second).notes = ['mine'];
  });
});
