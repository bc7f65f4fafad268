import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Pool } from 'pg';
import { Session, SessionConflictError } from '@nanobot/session';
import { deepFreeze } from '@nanobot-internal/test-support';
import { SessionFencedError } from './errors.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { freshDatabase } from './test-support/pg-test-env.js';

let pool: Pool;
let store: PostgresSessionStore;

beforeAll(async () => {
  ({ pool } = await freshDatabase('store_test'));
  store = new PostgresSessionStore({ pool });
});
afterAll(async () => {
  await pool.end();
});

async function rows(key: string): Promise<{ seq: number; content: unknown }[]> {
  const res = await pool.query<{ seq: string; content: unknown }>(`select seq, message->'content' as content from nanobot.messages where session_key = $1 order by seq`, [key]);
  return res.rows.map((r) => ({ seq: Number(r.seq), content: r.content }));
}

describe('PostgresSessionStore', () => {
  it('round-trips messages (key order kept), metadata, pointer and provider state', async () => {
    const { session, created } = await store.load('rt:1');
    expect(created).toBe(true);
    session.addMessage('user', 'hi');
    session.messages.push({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'x', arguments: '{}' } }], zeta: 1, alpha: 2 });
    session.messages.push({ role: 'tool', tool_call_id: 'c1', name: 'x', content: 'ok' });
    session.metadata = { title: 'T', nested: { b: 1, a: 2 } };
    session.lastConsolidated = 1;
    session.providerState = { response_id: 'r1' };
    await store.save(session);
    const loaded = (await store.load('rt:1')).session;
    expect(loaded.messages).toEqual(session.messages);
    expect(JSON.stringify(loaded.messages)).toBe(JSON.stringify(session.messages));
    expect(JSON.stringify(loaded.metadata)).toBe(JSON.stringify(session.metadata));
    expect(loaded.lastConsolidated).toBe(1);
    expect(loaded.providerState).toEqual({ response_id: 'r1' });
    expect(loaded.createdAt).toBe(session.createdAt);
    expect(await store.list()).toContain('rt:1');
  });

  it('appends only new rows and never mutates what it saves', async () => {
    const { session } = await store.load('append:1');
    session.addMessage('user', 'one');
    await store.save(session);
    session.addMessage('assistant', 'two');
    deepFreeze(session.messages);
    await store.save(session);
    expect(await rows('append:1')).toEqual([
      { seq: 0, content: 'one' },
      { seq: 1, content: 'two' },
    ]);
  });

  it('two writers appending to one session both keep their messages, in commit order', async () => {
    const storeA = new PostgresSessionStore({ pool });
    const storeB = new PostgresSessionStore({ pool });
    const seed = (await storeA.load('two:1')).session;
    seed.addMessage('user', 'base');
    await storeA.save(seed);
    const a = (await storeA.load('two:1')).session;
    const b = (await storeB.load('two:1')).session;
    a.addMessage('user', 'from A');
    b.addMessage('user', 'from B');
    await Promise.all([storeA.save(a), storeB.save(b)]);
    const contents = (await rows('two:1')).map((r) => r.content);
    expect(contents[0]).toBe('base');
    expect([...contents.slice(1)].sort()).toEqual(['from A', 'from B']);
    expect((await rows('two:1')).map((r) => r.seq)).toEqual([0, 1, 2]);
  });

  it('refuses a rewrite that would drop another writer\'s rows, and loses nothing', async () => {
    const storeA = new PostgresSessionStore({ pool });
    const storeB = new PostgresSessionStore({ pool });
    const seed = (await storeA.load('conflict:1')).session;
    seed.addMessage('user', 'kept');
    await storeA.save(seed);
    const a = (await storeA.load('conflict:1')).session;
    const b = (await storeB.load('conflict:1')).session;
    a.addMessage('assistant', 'acknowledged by A');
    await storeA.save(a);
    b.clear();
    await expect(storeB.save(b)).rejects.toBeInstanceOf(SessionConflictError);
    expect((await rows('conflict:1')).map((r) => r.content)).toEqual(['kept', 'acknowledged by A']);
    // B appending after A is fine: its message lands after A's.
    const b2 = (await storeB.load('conflict:1')).session;
    const c = (await storeB.load('conflict:1')).session;
    b2.addMessage('user', 'B1');
    c.addMessage('user', 'C1');
    await storeB.save(b2);
    await storeB.save(c);
    expect((await rows('conflict:1')).map((r) => r.content)).toEqual(['kept', 'acknowledged by A', 'B1', 'C1']);
  });

  it('metadata carries an optimistic version: a stale metadata write is refused', async () => {
    const storeA = new PostgresSessionStore({ pool });
    const storeB = new PostgresSessionStore({ pool });
    const seed = (await storeA.load('meta:1')).session;
    seed.addMessage('user', 'x');
    await storeA.save(seed);
    const a = (await storeA.load('meta:1')).session;
    const b = (await storeB.load('meta:1')).session;
    a.metadata = { title: 'A' };
    await storeA.save(a);
    b.metadata = { title: 'B' };
    await expect(storeB.save(b)).rejects.toBeInstanceOf(SessionConflictError);
    expect((await storeA.load('meta:1')).session.metadata).toEqual({ title: 'A' });
  });

  it('persists the consolidation pointer and rewrites on clear', async () => {
    const { session } = await store.load('ptr:1');
    for (let i = 0; i < 4; i += 1) session.addMessage(i % 2 ? 'assistant' : 'user', `m${i}`);
    await store.save(session);
    session.lastConsolidated = 2;
    await store.save(session);
    expect((await store.load('ptr:1')).session.lastConsolidated).toBe(2);
    session.clear();
    session.addMessage('user', 'fresh');
    await store.save(session);
    const loaded = (await store.load('ptr:1')).session;
    expect(loaded.messages.map((m) => m.content)).toEqual(['fresh']);
    expect(loaded.lastConsolidated).toBe(0);
  });

  it('refuses to save over a stored session it never loaded', async () => {
    const { session } = await store.load('unloaded:1');
    session.addMessage('user', 'x');
    await store.save(session);
    const stranger = new Session({ key: 'unloaded:1', messages: [{ role: 'user', content: 'other' }] });
    await expect(store.save(stranger)).rejects.toBeInstanceOf(SessionConflictError);
    expect((await rows('unloaded:1')).map((r) => r.content)).toEqual(['x']);
  });

  it('deletes sessions with their rows', async () => {
    const { session } = await store.load('del:1');
    session.addMessage('user', 'x');
    await store.save(session);
    expect(await store.delete('del:1')).toBe(true);
    expect(await store.delete('del:1')).toBe(false);
    expect(await rows('del:1')).toEqual([]);
    expect((await store.load('del:1')).created).toBe(true);
  });

  it('rolls back exactly the rows of an unfinished attempt', async () => {
    const { session } = await store.load('attempt:1');
    session.addMessage('user', 'earlier');
    await store.save(session);
    const first = await store.beginAttempt('attempt:1', 'in-1');
    const s = (await store.load('attempt:1')).session;
    s.addMessage('user', 'attempt user');
    s.addMessage('assistant', 'attempt partial');
    await store.save(s);
    store.endAttempt(first);
    const second = await store.beginAttempt('attempt:1', 'in-1');
    expect(second.rolledBack).toBe(2);
    expect(second.epoch).toBe(first.epoch + 1);
    store.endAttempt(second);
    expect((await rows('attempt:1')).map((r) => r.content)).toEqual(['earlier']);
    // The first attempt's session object carries the older fencing token: refused, nothing written.
    s.addMessage('user', 'stale');
    await expect(store.save(s)).rejects.toBeInstanceOf(SessionFencedError);
    expect((await rows('attempt:1')).map((r) => r.content)).toEqual(['earlier']);
    await store.releaseLease(second);
  });

  it('property: any sequence of appends, pointer moves, reloads and clears reads back as the model', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('add' as const), text: fc.string({ maxLength: 20 }) }),
            fc.record({ op: fc.constant('save' as const) }),
            fc.record({ op: fc.constant('reload' as const) }),
            fc.record({ op: fc.constant('pointer' as const) }),
            fc.record({ op: fc.constant('clear' as const) }),
          ),
          { maxLength: 12 },
        ),
        async (ops) => {
          const key = `prop:${n++}`;
          let session = (await store.load(key)).session;
          for (const op of ops) {
            if (op.op === 'add') session.addMessage('user', op.text);
            else if (op.op === 'save') await store.save(session);
            else if (op.op === 'pointer') session.lastConsolidated = session.messages.length;
            else if (op.op === 'clear') session.clear();
            else {
              await store.save(session);
              session = (await store.load(key)).session;
            }
          }
          await store.save(session);
          const loaded = (await store.load(key)).session;
          expect(loaded.messages).toEqual(session.messages);
          expect(loaded.lastConsolidated).toBe(session.lastConsolidated);
        },
      ),
      { numRuns: 25 },
    );
  });
});
