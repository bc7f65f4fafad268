// programs/encode.mjs: what every runtime writes, so that equal results are equal bytes.
import { describe, expect, it } from 'vitest';
import { capture, captureAsync, envelope, plain, resultsText, revive } from '../programs/encode.mjs';

describe('programs/encode', () => {
  it('revives the fixtures\' non-finite floats and only those', () => {
    expect(JSON.parse('[{"$float":"NaN"},{"$float":"-Infinity"},{"$float":"x","y":1}]', revive)).toEqual([NaN, -Infinity, { $float: 'x', y: 1 }]);
  });

  it('writes Sets sorted, Maps as objects, non-finite numbers encoded, undefined dropped', () => {
    expect(plain({ s: new Set(['b', 'a']), m: new Map([['k', 1]]), n: Infinity, u: undefined })).toEqual({ s: ['a', 'b'], m: { k: 1 }, n: { $float: 'Infinity' } });
  });

  it('captures values and thrown errors with their code', async () => {
    expect(capture(() => 1)).toEqual({ value: 1 });
    const e = Object.assign(new TypeError('bad'), { code: 'E_BAD' });
    expect(capture(() => { throw e; })).toEqual({ error: 'TypeError [E_BAD]: bad' });
    expect(await envelope(() => { throw new RangeError('r'); }, '')).toEqual({ ok: false, stage: 'run', error: 'RangeError: r' });
    expect(await envelope(async () => ({ text: 't', probe: {} }), '')).toEqual({ ok: true, text: 't', probe: {} });
    expect(await captureAsync(async () => { throw new SyntaxError('s'); })).toEqual({ error: 'SyntaxError: s' });
    expect(await captureAsync(async () => new Set([2, 1]))).toEqual({ value: [1, 2] });
  });

  it('writes one result per line, as a JSON array', () => {
    const text = resultsText([{ id: 'a' }, { id: 'b' }]);
    expect(text).toBe('[\n{"id":"a"},\n{"id":"b"}\n]\n');
    expect(JSON.parse(text)).toEqual([{ id: 'a' }, { id: 'b' }]);
  });
});
