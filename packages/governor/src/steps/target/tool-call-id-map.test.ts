// Renamed tool-call ids (Mistral's 9 alphanumerics, Anthropic's sanitized ids) on histories
// built to collide: names stay distinct, a grown history keeps every id it already had (the
// same history gives the same ids on every request), and the legalization memo, resuming the
// fold with its id map, gives exactly what the plain step gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { checkLegality } from '../../check-legality.js';
import { createGovernor } from '../../governor.js';
import { GovernorMemos } from '../../incremental/memo-store.js';
import { WeakDerivations } from '../../incremental/derivations.js';
import { legalizeForTarget, legalizeWithEntries } from './legalize-for-target.js';
import { shortToolCallId } from './tool-call-id-map.js';
import type { GovernTarget } from './govern-target.js';

const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'exec', arguments: '{}' } });

/** Ids chosen so that renamed ones clash with accepted ones, for both ways of renaming. */
const POOL = ['a.b', 'a_b', 'a_b_2', 'call_1|fc_2', 'call_1_fc_2', 'toolu_01', shortToolCallId('toolu_01'), shortToolCallId('toolu_01#2'), 'abcDEF123', 'x y', 'x_y'];

/** user, then turns of 1–3 calls from the pool (distinct within a turn) each answered, users between. */
const collidingHistory = fc
  .array(fc.tuple(fc.uniqueArray(fc.constantFrom(...POOL), { minLength: 1, maxLength: 3 }), fc.boolean()), { minLength: 1, maxLength: 12 })
  .map((turns): Message[] => {
    const out: Message[] = [{ role: 'user', content: 'go' }];
    for (const [ids, user] of turns) {
      out.push({ role: 'assistant', content: null, tool_calls: ids.map(call) });
      for (const id of ids) out.push({ role: 'tool', tool_call_id: id, name: 'exec', content: `r ${id}` });
      if (user) out.push({ role: 'user', content: 'next' });
    }
    return deepFreeze(out);
  });

const TARGETS: GovernTarget[] = ['mistral', 'anthropic', 'bedrock', 'gemini', 'any'];

/** Each call's name per position: [message index, call index] → id. */
function callIds(list: readonly Message[]): string[] {
  return list.flatMap((m) => (m.role === 'tool' ? [`r:${String(m.tool_call_id)}`] : (m.tool_calls ?? []).map((c) => `c:${c.id}`)));
}

describe('tool-call id renaming', () => {
  it('gives distinct originals distinct names, the target accepts them, and calls and results match', () => {
    fc.assert(
      fc.property(collidingHistory, fc.constantFrom(...TARGETS), (history, target) => {
        const { messages } = legalizeForTarget(history, { target });
        expect(messages.length).toBe(history.length);
        const names = new Map<string, string>();
        const owners = new Map<string, string>();
        history.forEach((m, i) => {
          const before = m.role === 'tool' ? [m.tool_call_id!] : (m.tool_calls ?? []).map((c) => c.id);
          const after = messages[i].role === 'tool' ? [messages[i].tool_call_id!] : (messages[i].tool_calls ?? []).map((c) => c.id);
          before.forEach((id, k) => {
            expect(names.get(id) ?? after[k]).toBe(after[k]);
            expect(owners.get(after[k]) ?? id).toBe(id);
            names.set(id, after[k]);
            owners.set(after[k], id);
          });
        });
        expect(checkLegality(messages, { target }).filter((v) => v.rule === 'invalid-tool-call-id')).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the names of a prefix when the history grows', () => {
    fc.assert(
      fc.property(collidingHistory, fc.constantFrom(...TARGETS), (history, target) => {
        const full = callIds(legalizeForTarget(history, { target }).messages);
        for (let n = 1; n < history.length; n++) {
          const prefix = callIds(legalizeForTarget(history.slice(0, n), { target }).messages);
          expect(full.slice(0, prefix.length)).toEqual(prefix);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('the legalization memo resumes the renaming: equal to the plain step on grown, cut and diverging lists', () => {
    fc.assert(
      fc.property(collidingHistory, collidingHistory, fc.constantFrom(...TARGETS), fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { minLength: 1, maxLength: 8 }), (history, other, target, steps) => {
        const memos = new GovernorMemos();
        for (const [end, shared, diverge] of steps) {
          // A diverging list keeps the first messages (the same objects: the fold rewinds after
          // them) and goes on with another history, whose ids may clash differently.
          const source = diverge ? [...history.slice(0, 1 + (shared % history.length)), ...other.slice(1)] : history;
          const list = source.slice(0, 1 + (end % source.length));
          const got = memos.legalize.run(list, target);
          const want = legalizeWithEntries(list, target);
          expect(got.messages).toEqual(want.messages);
          expect(got.removed).toEqual(want.removed);
          expect(got.added).toEqual(want.added);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('maps Mistral ids the same way on every request of a growing session (a Governor with memos and without)', () => {
    const history: Message[] = [{ role: 'user', content: 'go' }];
    for (let i = 0; i < 200; i++) history.push({ role: 'assistant', content: null, tool_calls: [call(`toolu_${i}`)] }, { role: 'tool', tool_call_id: `toolu_${i}`, name: 'exec', content: 'ok' });
    deepFreeze(history);
    const warm = createGovernor();
    const plain = createGovernor({ memos: false });
    let last: string[] = [];
    for (let n = 3; n <= history.length; n += 2) {
      const a = warm.govern(history.slice(0, n), { target: 'mistral' }).messages;
      expect(a).toEqual(plain.govern(history.slice(0, n), { target: 'mistral' }).messages);
      const ids = callIds(a);
      expect(ids.slice(0, last.length)).toEqual(last);
      last = ids;
    }
    expect(last[0]).toBe(`c:${shortToolCallId('toolu_0')}`);
  });

  it('keeps one renamed copy per message and way of renaming; a history that names the message otherwise gets copies of its own', () => {
    const turn: Message = { role: 'assistant', content: null, tool_calls: [call('a.b'), call('x y')] };
    const result: Message = { role: 'tool', tool_call_id: 'a.b', name: 'exec', content: '1' };
    const other: Message = { role: 'tool', tool_call_id: 'x y', name: 'exec', content: '2' };
    const history = deepFreeze<Message[]>([{ role: 'user', content: 'go' }, turn, result, other]);
    // `a_b` taken first: the same turn object names `a.b` `a_b_2` here.
    const clashing = deepFreeze<Message[]>([history[0], { role: 'assistant', content: null, tool_calls: [call('a_b')] }, { role: 'tool', tool_call_id: 'a_b', content: '0' }, turn, result, other]);
    const derive = new WeakDerivations();
    const run = (list: readonly Message[], target: GovernTarget) => legalizeForTarget(list, { target, derive }).messages;
    const mistral = run(history, 'mistral');
    expect(callIds(mistral)).toEqual([`c:${shortToolCallId('a.b')}`, `c:${shortToolCallId('x y')}`, `r:${shortToolCallId('a.b')}`, `r:${shortToolCallId('x y')}`]);
    const anthropic = run(history, 'anthropic');
    expect(callIds(anthropic)).toEqual(['c:a_b', 'c:x_y', 'r:a_b', 'r:x_y']);
    expect(callIds(run(clashing, 'anthropic')).slice(2)).toEqual(['c:a_b_2', 'c:x_y', 'r:a_b_2', 'r:x_y']);
    // Each target's copies are the same objects on the next request, whatever came between.
    const again = run(history, 'anthropic');
    for (const i of [1, 2, 3]) expect(again[i]).toBe(anthropic[i]);
    const mistralAgain = run(history, 'mistral');
    for (const i of [1, 2, 3]) expect(mistralAgain[i]).toBe(mistral[i]);
  });

  it('renames a later accepted id that an earlier renamed one already took, and only it', () => {
    const history = deepFreeze<Message[]>([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a.b')] },
      { role: 'tool', tool_call_id: 'a.b', content: '1' },
      { role: 'assistant', content: null, tool_calls: [call('a_b')] },
      { role: 'tool', tool_call_id: 'a_b', content: '2' },
      { role: 'user', content: 'next' },
    ]);
    const { messages, changes } = legalizeForTarget(history, { target: 'anthropic' });
    expect(callIds(messages)).toEqual(['c:a_b', 'r:a_b', 'c:a_b_2', 'r:a_b_2']);
    expect(changes.map((c) => [c.index, c.reason])).toEqual([[1, 'tool-call-id-sanitized'], [2, 'tool-call-id-sanitized'], [3, 'tool-call-id-sanitized'], [4, 'tool-call-id-sanitized']]);
    // The first request (before `a_b` existed) had the same name for `a.b`.
    expect(callIds(legalizeForTarget(history.slice(0, 3), { target: 'anthropic' }).messages)).toEqual(['c:a_b', 'r:a_b']);
  });
});
