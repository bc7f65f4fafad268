import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JsonlSessionStore } from './index.js';

type Op =
  | { kind: 'add'; n: number }
  | { kind: 'big'; size: number }
  | { kind: 'title'; size: number }
  | { kind: 'meta'; value: number }
  | { kind: 'pointer'; value: number }
  | { kind: 'provider'; value: number | null }
  | { kind: 'retain'; keep: number }
  | { kind: 'clear' }
  | { kind: 'compact' }
  | { kind: 'reload' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 4 }).map((n) => ({ kind: 'add' as const, n })) },
  { weight: 2, arbitrary: fc.nat(100).map((value) => ({ kind: 'meta' as const, value })) },
  // Messages beyond the 4 KiB tail window and headers that outgrow (or shrink within) their room.
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 9000 }).map((size) => ({ kind: 'big' as const, size })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 6000 }).map((size) => ({ kind: 'title' as const, size })) },
  { weight: 2, arbitrary: fc.nat(30).map((value) => ({ kind: 'pointer' as const, value })) },
  { weight: 1, arbitrary: fc.option(fc.nat(9)).map((value) => ({ kind: 'provider' as const, value })) },
  { weight: 1, arbitrary: fc.nat(6).map((keep) => ({ kind: 'retain' as const, keep })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'compact' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'reload' as const }) },
);

describe('JsonlSessionStore against an in-memory model', () => {
  it('after any sequence of changes and saves, a reload equals the in-memory session', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), fc.integer({ min: 200, max: 5000 }), async (ops, compactAfterBytes) => {
        const store = new JsonlSessionStore({ dir: mkdtempSync(join(tmpdir(), 'nb-model-')), fsync: 'never', compactAfterBytes });
        let { session } = await store.load('model:key');
        let counter = 0;
        for (const o of ops) {
          switch (o.kind) {
            case 'add':
              for (let i = 0; i < o.n; i += 1) session.addMessage(counter % 2 ? 'assistant' : 'user', `m${counter++}`);
              break;
            case 'meta':
              session.metadata = { ...session.metadata, v: o.value };
              break;
            case 'big':
              session.addMessage(counter % 2 ? 'assistant' : 'user', `m${counter++}:${'é'.repeat(o.size)}`);
              break;
            case 'title':
              session.metadata = { ...session.metadata, title: 't'.repeat(o.size) };
              break;
            case 'pointer':
              session.lastConsolidated = Math.min(o.value, session.messages.length);
              break;
            case 'provider':
              session.providerState = o.value === null ? null : { n: o.value };
              break;
            case 'retain':
              session.retainRecentLegalSuffix(o.keep);
              break;
            case 'clear':
              session.clear();
              break;
            case 'compact':
              await store.save(session);
              await store.compact(session);
              break;
            case 'reload':
              await store.save(session);
              session = (await store.load('model:key')).session;
              break;
          }
          if (o.kind !== 'reload') await store.save(session);
          const { session: loaded, warnings } = await store.load('model:key');
          expect(warnings).toEqual([]);
          expect(loaded.messages).toEqual(session.messages);
          expect(loaded.metadata).toEqual(session.metadata);
          expect(loaded.lastConsolidated).toBe(session.lastConsolidated);
          expect(loaded.providerState).toEqual(session.providerState);
          // The reference's layout at all times: one metadata record, on the first line.
          const records = readFileSync(store.pathFor('model:key'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { _type?: string });
          expect(records.findIndex((r) => r._type === 'metadata')).toBe(0);
          expect(records.filter((r) => r._type === 'metadata')).toHaveLength(1);
        }
      }),
      { numRuns: 40 },
    );
  });
});
