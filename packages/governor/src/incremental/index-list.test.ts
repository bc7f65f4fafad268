import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IndexList } from './index-list.js';

describe('IndexList', () => {
  it('holds what a plain array would after any pushes and cuts, past its first room too', () => {
    const op = fc.oneof(fc.record({ push: fc.integer({ min: 0, max: 2 ** 31 - 1 }) }), fc.record({ cut: fc.nat(200) }));
    fc.assert(
      fc.property(fc.array(fc.array(op, { maxLength: 60 }), { maxLength: 8 }), (batches) => {
        const list = new IndexList();
        const model: number[] = [];
        for (const batch of batches) {
          for (const o of batch) {
            if ('push' in o) {
              list.push(o.push);
              model.push(o.push);
            } else {
              const n = Math.min(o.cut, model.length);
              list.truncate(n);
              model.length = n;
            }
          }
          expect(list.length).toBe(model.length);
          for (let i = 0; i < model.length; i++) expect(list.at(i)).toBe(model[i]);
        }
      }),
    );
  });

  it('keeps 100,000 indices in order', () => {
    const list = new IndexList();
    for (let i = 0; i < 100_000; i++) list.push(i * 3);
    expect(list.length).toBe(100_000);
    expect(list.at(0)).toBe(0);
    expect(list.at(65_536)).toBe(196_608);
    expect(list.at(99_999)).toBe(299_997);
  });

  it('cutting to more than it holds changes nothing', () => {
    const list = new IndexList();
    list.push(4);
    list.truncate(10);
    expect(list.length).toBe(1);
    expect(list.at(0)).toBe(4);
  });
});
