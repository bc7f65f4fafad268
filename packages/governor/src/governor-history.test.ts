import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolTraitsTable, ValidationError, type Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { createGovernor } from './governor.js';
import { CallClock } from './incremental/call-clock.js';
import { ListSnapshot } from './incremental/list-snapshot.js';
import { arbitraryHistory } from './test-support/arbitrary-history.js';
import { GOVERN_TARGETS } from './steps/target/govern-target.js';

const toolTraits = toolTraitsTable([['exec', { compactable: true }], ['read_file', { compactable: true }]]);

describe('a Governor-owned history', () => {
  it('governed while it grows, gives what a Governor without memos gives for the same messages as arrays', () => {
    let compacted = 0;
    fc.assert(
      fc.property(
        arbitraryHistory,
        fc.integer({ min: 1300, max: 5000 }),
        fc.constantFrom(...GOVERN_TARGETS),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 2, maxLength: 10 }),
        (history, window, target, steps) => {
          const h = deepFreeze(history);
          const options = { contextWindowTokens: window, maxOutputTokens: 0, toolTraits, target };
          const owner = createGovernor(options);
          const plain = createGovernor({ ...options, memos: false });
          const owned = owner.createHistory(h.slice(0, Math.min(h.length, 2)));
          for (const grow of steps) {
            owned.append(...h.slice(owned.length, Math.min(h.length, owned.length + grow)));
            const a = owner.govern(owned);
            const b = plain.govern(h.slice(0, owned.length));
            expect(JSON.stringify(a.messages)).toBe(JSON.stringify(b.messages));
            expect(JSON.stringify(a.report)).toBe(JSON.stringify(b.report));
            expect(a.cutPlan).toEqual(b.cutPlan);
            if (a.report.steps.some((s) => s.step === 'compactInflightOverflow' && s.changed)) compacted++;
          }
        },
      ),
      { numRuns: 150 },
    );
    expect(compacted).toBeGreaterThan(0);
  });

  it('hands back a copy: changing a result or toArray() leaves the history as it was', () => {
    const governor = createGovernor();
    const history = governor.createHistory<Message>([{ role: 'user', content: 'hi' }]);
    history.append({ role: 'assistant', content: 'hello' }, { role: 'user', content: 'again' });
    const result = governor.govern(history);
    expect(result.messages.map((m) => m.content)).toEqual(['hi', 'hello', 'again']);
    result.messages.pop();
    history.toArray().length = 0;
    expect(history.length).toBe(3);
    expect([...history].map((m) => m.content)).toEqual(['hi', 'hello', 'again']);
    expect(history.at(-1)).toEqual({ role: 'user', content: 'again' });
    expect(governor.govern(history).messages).toHaveLength(3);
  });

  it('copies what it was created from: the caller may change that array', () => {
    const governor = createGovernor();
    const initial: Message[] = [{ role: 'user', content: 'a' }];
    const history = governor.createHistory(initial);
    initial[0] = { role: 'user', content: 'b' };
    initial.push({ role: 'assistant', content: 'c' });
    expect(history.toArray()).toEqual([{ role: 'user', content: 'a' }]);
    expect(governor.govern(history).messages).toEqual([{ role: 'user', content: 'a' }]);
  });

  it('refuses what is not a message, appending nothing, and a history of another Governor', () => {
    const governor = createGovernor();
    const history = governor.createHistory<Message>([{ role: 'user', content: 'a' }]);
    const bad = () => history.append({ role: 'assistant', content: 'b' }, null as unknown as Message);
    expect(bad).toThrow(ValidationError);
    expect(bad).toThrow(/message 1 must be an object \(none of the 2 was taken\)/);
    expect(history.length).toBe(1);
    expect(() => governor.createHistory([[] as unknown as Message])).toThrow(/createHistory: message 0 must be an object/);
    expect(() => governor.createHistory('hi' as unknown as Message[])).toThrow(/createHistory: messages must be an array/);
    expect(() => createGovernor().govern(history)).toThrow(/a GovernorHistory this Governor created/);
    expect(() => governor.govern({ length: 1, at: () => undefined } as never)).toThrow(ValidationError);
    // Nothing lost: the history still governs.
    expect(governor.govern(history).messages).toEqual([{ role: 'user', content: 'a' }]);
  });

  it('is what lets a memo skip the pass: a copy of an append-only list shares every copied slot with it', () => {
    const clock = new CallClock();
    const list: Message[] = [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }];
    const other = [...list];
    clock.markAppendOnly(list);
    const onList = new ListSnapshot(clock);
    const onOther = new ListSnapshot(clock);
    clock.begin();
    onList.update(list, 0);
    onOther.update(other, 0);
    clock.end(0);
    clock.begin();
    list.push({ role: 'user', content: 'c' });
    other.push({ role: 'user', content: 'c' });
    // A slot replaced behind the Governor's back (what a history's owner rules out): only the
    // caller's array is compared, so only there is it seen.
    list[0] = { role: 'user', content: 'x' };
    other[0] = { role: 'user', content: 'x' };
    expect(onList.commonPrefix(list)).toBe(2);
    expect(onOther.commonPrefix(other)).toBe(0);
    clock.end(0);
  });
});
