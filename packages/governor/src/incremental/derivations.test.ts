import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WeakDerivations } from './derivations.js';

describe('WeakDerivations', () => {
  it('derives each (object, key) once and gives it back, as a Map of Maps would, however many keys an object has', () => {
    const objects = [{}, {}, {}];
    const keyObjects = [{ k: 1 }, { k: 1 }, /x/];
    // Strings built anew on each use (equal text, another string object), objects, NaN, undefined.
    const key = fc.oneof(fc.nat(25).map((n) => ({ text: `key:${n}` })), fc.constantFrom(0, 1, 2).map((i) => ({ object: i })), fc.constant({ nan: true }), fc.constant({ none: true }));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(0, 1, 2), key, fc.boolean()), { maxLength: 200 }), (ops) => {
        const cache = new WeakDerivations();
        const model = new Map<object, Map<unknown, unknown>>();
        let made = 0;
        for (const [o, k, undef] of ops) {
          const from = objects[o];
          const realKey = 'text' in k ? [k.text.slice(0, 4), k.text.slice(4)].join('') : 'object' in k ? keyObjects[k.object] : 'nan' in k ? Number.NaN : undefined;
          const byKey = model.get(from) ?? new Map<unknown, unknown>();
          model.set(from, byKey);
          const expected = byKey.has(realKey) ? byKey.get(realKey) : (undef ? undefined : { made: made + 1 });
          const fresh = !byKey.has(realKey);
          const got = cache.derive(from, realKey, () => {
            made++;
            return undef ? undefined : { made };
          });
          if (fresh) byKey.set(realKey, got);
          expect(got).toEqual(expected);
          if (!fresh) expect(got).toBe(byKey.get(realKey));
        }
        const distinct = [...model.values()].reduce((n, m) => n + m.size, 0);
        expect(made).toBe(distinct);
      }),
      { numRuns: 300 },
    );
  });
});
