import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { DeferredEntries, lineWithDeferredEntries, NO_ENTRIES } from './deferred-list.js';
import type { ReportedMessage } from './govern-report.js';
import { ref } from './reported-message.js';
import { createGovernor } from '../governor.js';

const msg: Message = { role: 'user', content: 'hi' };
const entry: ReportedMessage = Object.freeze(ref(msg, 0, 'merged-same-role'));

/** A builder that counts its calls and returns one frozen list. */
function counted(list: readonly ReportedMessage[]): { build: () => readonly ReportedMessage[]; calls: () => number } {
  let calls = 0;
  return {
    build: () => {
      calls++;
      return list;
    },
    calls: () => calls,
  };
}

describe('DeferredEntries', () => {
  it('builds each list on first read only, once, and hands the same list after', () => {
    const removed = counted(Object.freeze([entry]));
    const result = new DeferredEntries([msg], removed.build, NO_ENTRIES);
    expect(removed.calls()).toBe(0);
    expect(result.removed).toEqual([entry]);
    expect(result.removed).toBe(result.removed);
    expect(removed.calls()).toBe(1);
    expect(result.added).toEqual([]);
    expect(Object.isFrozen(result.added)).toBe(true);
  });
});

describe('lineWithDeferredEntries', () => {
  const make = () => {
    const removed = counted(Object.freeze([entry]));
    const added = counted(Object.freeze([]));
    const from = new DeferredEntries([msg], removed.build, added.build);
    return { line: lineWithDeferredEntries('enforceRoleAlternation', 1, true, 2, 1, from, []), from, removed, added };
  };

  it('keeps the keys of every other line, in their order, as own enumerable properties', () => {
    const { line } = make();
    expect(Object.keys(line)).toEqual(['step', 'pass', 'changed', 'messagesBefore', 'messagesAfter', 'removed', 'added', 'toolResults']);
    expect(JSON.parse(JSON.stringify(line))).toEqual({
      step: 'enforceRoleAlternation', pass: 1, changed: true, messagesBefore: 2, messagesAfter: 1, removed: [{ ...entry }], added: [], toolResults: [],
    });
  });

  it('shares one pair of accessors between lines and shows nothing else (spread, keys, JSON)', () => {
    const a = make().line;
    const b = make().line;
    // Accessors made per line left every line in the engine's slow dictionary mode.
    expect(Object.getOwnPropertyDescriptor(a, 'removed')!.get).toBe(Object.getOwnPropertyDescriptor(b, 'removed')!.get);
    expect(Object.getOwnPropertyDescriptor(a, 'added')!.set).toBe(Object.getOwnPropertyDescriptor(b, 'added')!.set);
    const spread = { ...a };
    expect(Object.getOwnPropertySymbols(spread)).toEqual([]);
    expect(Object.keys(spread)).toEqual(Object.keys(a));
    expect(spread.removed).toBe(a.removed);
  });

  it('builds nothing until a list is read, then reads the result\'s own list, which becomes plain data', () => {
    const { line, from, removed, added } = make();
    expect(removed.calls() + added.calls()).toBe(0);
    const list = line.removed;
    expect(list).toBe(from.removed);
    expect(removed.calls()).toBe(1);
    expect(added.calls()).toBe(0);
    const d = Object.getOwnPropertyDescriptor(line, 'removed')!;
    expect(d.get).toBeUndefined();
    expect(d.value).toBe(list);
    expect(d.enumerable).toBe(true);
  });

  it('lets an assignment replace a list before or after it was read', () => {
    const { line, removed } = make();
    const mine = Object.freeze([entry, entry]);
    line.removed = mine;
    expect(line.removed).toBe(mine);
    expect(removed.calls()).toBe(0);
    void line.added;
    line.added = mine;
    expect(line.added).toBe(mine);
  });

  it('still reads its lists when the line was frozen before they were built', () => {
    const { line, from } = make();
    Object.freeze(line);
    expect(line.removed).toBe(from.removed);
    expect(line.added).toEqual([]);
  });
});

describe('a governed report with a memo\'s deferred lists', () => {
  it('reads like plain data: JSON and structured clone see the same lists as the line', () => {
    const history: Message[] = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'one' },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: 'ok' },
    ];
    const governor = createGovernor();
    governor.govern(history, { target: 'anthropic' });
    const { report } = governor.govern([...history, { role: 'user', content: 'three' }], { target: 'anthropic' });
    const line = report.steps.find((s) => s.step === 'enforceRoleAlternation')!;
    expect(line.changed).toBe(true);
    const cloned = structuredClone(report);
    const json = JSON.parse(JSON.stringify(report)) as typeof report;
    const fromClone = cloned.steps.find((s) => s.step === 'enforceRoleAlternation')!;
    const fromJson = json.steps.find((s) => s.step === 'enforceRoleAlternation')!;
    expect(fromClone.removed).toEqual(line.removed);
    expect(fromJson.removed.map((e) => e.index)).toEqual(line.removed.map((e) => e.index));
    expect(line.removed.map((e) => e.reason)).toEqual(['merged-same-role', 'merged-same-role']);
  });
});
