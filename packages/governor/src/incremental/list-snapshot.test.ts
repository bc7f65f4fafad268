import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { CallClock } from './call-clock.js';
import { ListSnapshot } from './list-snapshot.js';

const pool: Message[] = Array.from({ length: 40 }, (_, i) => ({ role: 'user', content: `m${i}` }));

/** The length of the common prefix of two lists, by identity. */
function prefix(a: readonly Message[], b: readonly Message[]): number {
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  return k;
}

describe('ListSnapshot', () => {
  it('reads as the list it was last made equal to, whatever it held before (grown, cut, rewritten)', () => {
    const list = fc.array(fc.nat(pool.length - 1), { maxLength: 300 }).map((ix) => ix.map((i) => pool[i]));
    fc.assert(
      fc.property(fc.array(fc.tuple(list, fc.nat()), { minLength: 1, maxLength: 10 }), (updates) => {
        const snapshot = new ListSnapshot(new CallClock());
        let last: Message[] = [];
        for (const [next, cut] of updates) {
          // Any known common prefix may be kept (the callers pass one or less).
          const shared = Math.min(cut, prefix(last, next));
          snapshot.update(next, shared);
          expect(snapshot.length).toBe(next.length);
          for (let i = 0; i < next.length; i++) expect(snapshot.at(i)).toBe(next[i]);
          expect(snapshot.equals(next)).toBe(true);
          expect(snapshot.commonPrefix([...next, pool[0]])).toBe(next.length);
          expect(snapshot.mayPrefix([...next, pool[1]])).toBe(next.length > 0);
          last = next;
        }
      }),
    );
  });

  it('copies a 20,000-message list and grows it by appending, slot for slot', () => {
    const big = Array.from({ length: 20_000 }, (_, i) => pool[i % pool.length]);
    const snapshot = new ListSnapshot(new CallClock());
    snapshot.update(big.slice(0, 10_000), 0);
    for (let n = 10_004; n <= 20_000; n += 4) snapshot.update(big.slice(0, n), n - 4);
    expect(snapshot.length).toBe(20_000);
    expect(snapshot.equals(big)).toBe(true);
    snapshot.update(big.slice(0, 3), 3);
    expect(snapshot.length).toBe(3);
    expect(snapshot.equals(big.slice(0, 3))).toBe(true);
  });

  it('keeps no message alive from slots a shorter list cut away', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const collect = async (): Promise<void> => {
      // A WeakRef holds its target until the current job ends.
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
      gc();
    };
    const snapshot = new ListSnapshot(new CallClock());
    const first: Message = { role: 'user', content: 'kept' };
    // The tail messages are held only by the snapshot once this returns.
    const fill = (): WeakRef<Message>[] => {
      const tail = Array.from({ length: 1_000 }, (_, i) => ({ role: 'assistant', content: `tail ${i}` }) as Message);
      snapshot.update([first, ...tail], 0);
      // Cut within the copy's room (its array kept), then below a quarter of it (a smaller array).
      snapshot.update([first, ...tail.slice(0, 400)], 401);
      return tail.map((m) => new WeakRef(m));
    };
    const refs = fill();
    await collect();
    expect(refs.slice(400).filter((r) => r.deref() !== undefined)).toHaveLength(0);
    expect(refs.slice(0, 400).every((r) => r.deref() !== undefined)).toBe(true);
    snapshot.update([first], 1);
    await collect();
    expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
    expect(snapshot.at(0)).toBe(first);
    expect(snapshot.length).toBe(1);
  });
});
