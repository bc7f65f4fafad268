import { describe, expect, it } from 'vitest';
import { resultsText } from '../programs/encode.mjs';
import { checkAgainstReference } from './reference-check.mjs';

const msgs = [{ role: 'user', content: 'hi' }];

describe('checkAgainstReference', () => {
  const expected = new Map<string, any>([
    ['f a', { expected: msgs, raised: false }],
    ['f b', { expected: msgs, raised: false, compacted: ['c1'] }],
    ['f c', { expected: { error: 'ValueError: x', error_type: 'ValueError' }, raised: true }],
    ['f d', { expected: { outputs: [msgs], compacted_tool_call_ids_after_each: [['c1']] }, raised: false }],
    ['f e', { expected: 7, raised: false }],
  ]);

  it('matches values, messages with compacted ids, raised cases and sequences', () => {
    const text = resultsText([
      { id: 'tokens s', cl100k: { value: 3 } },
      { id: 'f a', reference: { value: msgs } },
      { id: 'f b', reference: { value: { messages: msgs, compacted: ['c1'] } } },
      { id: 'f c', reference: { error: 'ValidationError: x' } },
      { id: 'f d', reference: { value: [{ messages: msgs, compacted: ['c1'] }] } },
      { id: 'f e', reference: { value: 7 } },
    ]);
    expect(checkAgainstReference(text, expected)).toEqual({ checked: 5, matched: 5, mismatches: [] });
  });

  it('reports each kind of mismatch', () => {
    const text = resultsText([
      { id: 'f a', reference: { value: [] } },
      { id: 'f b', reference: { value: { messages: msgs, compacted: [] } } },
      { id: 'f c', reference: { value: 1 } },
      { id: 'f d', reference: { value: [{ messages: msgs, compacted: [] }] } },
      { id: 'f e', reference: { error: 'TypeError: govern is not a function' } },
    ]);
    const r = checkAgainstReference(text, expected);
    expect(r.matched).toBe(0);
    expect(r.mismatches.map((m) => m.why)).toEqual([
      'value differs',
      'compacted ids differ',
      'the reference raised ValueError, the harness got a value',
      'compacted ids after each turn differ',
      'threw TypeError: govern is not a function',
    ]);
  });
});
