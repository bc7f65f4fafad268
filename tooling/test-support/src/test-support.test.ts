import { describe, expect, it } from 'vitest';
import { deepFreeze, hasNote, isExhaustive, jsonClean, loadCases, runs } from './index.js';

describe('test-support', () => {
  it('sizes runs quick by default and full only when NANOBOT_EXHAUSTIVE=1', () => {
    expect(runs(10, 1000, {})).toBe(10);
    expect(runs(10, 1000, { NANOBOT_EXHAUSTIVE: '1' })).toBe(1000);
    expect(runs(10, 1000, { NANOBOT_EXHAUSTIVE: 'yes' })).toBe(10);
    expect(isExhaustive({ NANOBOT_EXHAUSTIVE: '1' })).toBe(true);
  });

  it('loads conformance cases and revives non-finite floats', () => {
    const cases = loadCases('governance/input_budget.json');
    expect(cases.length).toBeGreaterThan(0);
    expect(cases[0]).toHaveProperty('fn');
    const text = JSON.stringify(loadCases('tool_calls/prepare_call.json'));
    expect(text).not.toContain('$float');
  });

  it('deep-freezes nested values', () => {
    const v = deepFreeze({ a: [{ b: 1 }] });
    expect(Object.isFrozen(v.a[0])).toBe(true);
    expect(() => {
      (v.a as unknown as unknown[]).push(1);
    }).toThrow();
  });

  it('reads note tags from strings and lists', () => {
    const base = { name: 'x', fn: 'f', input: {}, config: {}, expected: null, raised: false, input_mutated: false };
    expect(hasNote({ ...base, notes: 'float_int_ambiguity' }, 'float_int_ambiguity')).toBe(true);
    expect(hasNote({ ...base, notes: ['a', 'b'] }, 'b')).toBe(true);
    expect(hasNote(base, 'a')).toBe(false);
    expect(jsonClean({ a: undefined, b: 1 })).toEqual({ b: 1 });
  });
});
