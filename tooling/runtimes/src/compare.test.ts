import { describe, expect, it } from 'vitest';
import { resultsText } from '../programs/encode.mjs';
import { firstDifference, firstDifferingPath } from './compare.mjs';

const rows = (tokens: number, content = 'hi') => resultsText([{ id: 'tokens a', cl100k: { value: tokens } }, { id: 'case b', out: { value: { messages: [{ role: 'user', content }] } } }]);

describe('firstDifference', () => {
  it('is null for byte-identical results', () => {
    expect(firstDifference(rows(5173), rows(5173))).toBeNull();
  });

  it('names the first differing case, the path inside it and both values', () => {
    expect(firstDifference(rows(5173, 'a'), rows(17227, 'b'))).toEqual({ line: 2, id: 'tokens a', path: '.cl100k.value', baseline: '5173', other: '17227' });
    expect(firstDifference(rows(1, 'a'), rows(1, 'b'))).toMatchObject({ id: 'case b', path: '.out.value.messages[0].content', baseline: '"a"', other: '"b"' });
  });

  it('reports results that stop early', () => {
    const full = rows(1);
    const cut = `${full.split('\n').slice(0, 2).join('\n')}`;
    expect(firstDifference(full, cut)).toMatchObject({ id: '(end of results)' });
  });

  it('tells a key-order difference from a value difference', () => {
    const a = resultsText([{ id: 'x', out: { value: { a: 1, b: 2 } } }]);
    const b = resultsText([{ id: 'x', out: { value: { b: 2, a: 1 } } }]);
    expect(firstDifference(a, b)).toMatchObject({ id: 'x', path: '(key order)' });
  });

  it('shortens long values', () => {
    const long = 'x'.repeat(1000);
    const d = firstDifference(rows(1, long), rows(1, `${long}y`));
    expect(d!.baseline.length).toBeLessThanOrEqual(160);
  });
});

describe('firstDifferingPath', () => {
  it('walks arrays and objects depth first and stops at a type change', () => {
    expect(firstDifferingPath({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] }, '')).toEqual({ path: '.a[1].b', left: 2, right: 3 });
    expect(firstDifferingPath({ a: [1] }, { a: { 0: 1 } }, '')).toEqual({ path: '.a', left: [1], right: { 0: 1 } });
    expect(firstDifferingPath({ a: 1 }, { a: 1, b: undefined }, '')).toBeNull();
    // A value against an error: both objects, so the report shows the error.
    expect(firstDifferingPath({ out: { value: 62 } }, { out: { error: 'TypeError: x' } }, '')).toEqual({ path: '.out', left: { value: 62 }, right: { error: 'TypeError: x' } });
  });
});
