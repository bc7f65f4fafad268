// ReplayedHistory against replayFailures of the whole transcript (the path before issue 31):
// random transcripts holding failure rows (new `_failure` rows, the texts earlier versions
// stored, marked rows that are not failures), grown by appends and changed by every rewrite the
// view must notice (truncation, a dropped or inserted row, a replaced tail, a new array with a
// replaced row), rows repeated in the list included. Appends are counted, as the runner counts
// its own; every other change is a rewrite the view must notice. After every change the view
// holds exactly the slots replayFailures gives.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createGovernor } from '@nanobot/governor';
import { FAILURE_FIELD, LEGACY_FAILURE_TEXTS, replayFailures, toolFailureRow, turnFailureRow, type Message } from '@nanobot/schema';
import { ReplayedHistory } from './replayed-history.js';

/** A pool of rows: rewrites may put back an object already seen, as a real transcript may. */
function rowPool(): Message[] {
  const pool: Message[] = [];
  for (let i = 0; i < 6; i++) {
    pool.push(
      { role: 'user', content: `question ${i}` },
      { role: 'assistant', content: `answer ${i}` },
      { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'exec', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: `c${i}`, name: 'exec', content: `output ${i}` },
      turnFailureRow(i % 2 === 0 ? 'interrupted' : 'model_error', i % 3 === 0 ? `HTTP 5${i}0` : null),
      toolFailureRow({ id: `c${i}`, name: 'exec' }),
      { role: 'assistant', content: `  ${LEGACY_FAILURE_TEXTS.turnInterrupted}\n` },
      { role: 'assistant', content: LEGACY_FAILURE_TEXTS.modelError[i % 2] },
      { role: 'tool', tool_call_id: `c${i}`, name: 'exec', content: LEGACY_FAILURE_TEXTS.toolInterrupted },
      // Marked, but with text: the model's own words, not a failure.
      { role: 'assistant', content: `partial ${i}`, [FAILURE_FIELD]: { kind: 'interrupted' } },
    );
  }
  return pool;
}

type Op =
  | { kind: 'append'; rows: number[] }
  | { kind: 'new-run'; rows: number[] }
  | { kind: 'truncate'; at: number }
  | { kind: 'drop'; at: number }
  | { kind: 'insert'; at: number; row: number }
  | { kind: 'replace-last'; row: number }
  | { kind: 'pop-push'; row: number }
  | { kind: 'new-array-replaced'; at: number; row: number }
  | { kind: 'new-array-shorter'; at: number };

const index = fc.nat({ max: 10_000 });
const rows = fc.array(index, { maxLength: 6 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('append' as const), rows }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('new-run' as const), rows }) },
  fc.record({ kind: fc.constant('truncate' as const), at: index }),
  fc.record({ kind: fc.constant('drop' as const), at: index }),
  fc.record({ kind: fc.constant('insert' as const), at: index, row: index }),
  fc.record({ kind: fc.constant('replace-last' as const), row: index }),
  fc.record({ kind: fc.constant('pop-push' as const), row: index }),
  fc.record({ kind: fc.constant('new-array-replaced' as const), at: index, row: index }),
  fc.record({ kind: fc.constant('new-array-shorter' as const), at: index }),
);

/** Applies `o` to `list` (in place, or a new array as a new run or a replaced transcript would be); returns the list now current. */
function apply(list: Message[], o: Op, pool: readonly Message[]): Message[] {
  const pick = (i: number): Message => pool[i % pool.length];
  const at = (i: number): number => (list.length === 0 ? 0 : i % list.length);
  switch (o.kind) {
    case 'append':
      for (const r of o.rows) list.push(pick(r));
      return list;
    case 'new-run':
      return [...list, ...o.rows.map(pick)];
    case 'truncate':
      list.length = at(o.at);
      return list;
    case 'drop':
      list.splice(at(o.at), 1);
      return list;
    case 'insert':
      list.splice(at(o.at), 0, pick(o.row));
      return list;
    case 'replace-last':
      if (list.length > 0) list[list.length - 1] = pick(o.row);
      return list;
    case 'pop-push':
      list.pop();
      list.push(pick(o.row));
      return list;
    case 'new-array-replaced': {
      const next = list.slice();
      if (next.length > 0) next[at(o.at)] = pick(o.row);
      return next;
    }
    case 'new-array-shorter':
      return list.slice(0, at(o.at));
  }
}

function expectSameSlots(view: ReplayedHistory, list: readonly Message[], appends = 0): void {
  const got = view.sync(list, appends).toArray();
  const want = replayFailures(list);
  expect(got.length).toBe(want.length);
  // The same objects, slot for slot: the Governor's memos and the prompt cache see no difference.
  const differing = got.flatMap((m, i) => (m === want[i] ? [] : [i]));
  expect(differing).toEqual([]);
}

describe('ReplayedHistory (property)', () => {
  it('holds replayFailures(transcript) after appends and rewrites; appends never rebuild', () => {
    const pool = rowPool();
    fc.assert(
      fc.property(fc.array(index, { maxLength: 30 }), fc.array(op, { minLength: 1, maxLength: 40 }), (start, ops) => {
        const view = new ReplayedHistory(createGovernor());
        let list = start.map((i) => pool[i % pool.length]);
        let appends = 0;
        expectSameSlots(view, list, appends);
        for (const o of ops) {
          const before = view.rebuilds;
          list = apply(list, o, pool);
          if (o.kind === 'append') appends += o.rows.length;
          expectSameSlots(view, list, appends);
          if (o.kind === 'append' || o.kind === 'new-run') expect(view.rebuilds).toBe(before);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a rewrite that keeps the length is rebuilt: a replaced tail, a row dropped and another appended', () => {
    const pool = rowPool();
    const view = new ReplayedHistory(createGovernor());
    const list: Message[] = [pool[0], pool[4], pool[1], pool[5]];
    expectSameSlots(view, list);
    list[3] = pool[8];
    expectSameSlots(view, list);
    expect(view.rebuilds).toBe(2);
    list.splice(1, 1);
    list.push(pool[6]);
    expectSameSlots(view, list, 1);
    expect(view.rebuilds).toBe(3);
  });

  it('a row inserted or removed by someone else is seen by the count of appends, even among repeated rows', () => {
    const pool = rowPool();
    const view = new ReplayedHistory(createGovernor());
    const list: Message[] = [pool[0], pool[3], pool[3]];
    expectSameSlots(view, list);
    // First and last row unchanged: only the length tells.
    list.unshift(pool[0]);
    expectSameSlots(view, list);
    expect(view.rebuilds).toBe(2);
    list.push(pool[1]);
    list.splice(1, 1);
    expectSameSlots(view, list, 1);
    expect(view.rebuilds).toBe(3);
    list.push(pool[2]);
    expectSameSlots(view, list, 2);
    expect(view.rebuilds).toBe(3);
  });

  it('another array with a replaced middle row is rebuilt; one that extends the rows is not', () => {
    const pool = rowPool();
    const view = new ReplayedHistory(createGovernor());
    const list: Message[] = [pool[0], pool[4], pool[1], pool[5], pool[2]];
    expectSameSlots(view, list);
    const extended = [...list, pool[3], pool[7]];
    expectSameSlots(view, extended);
    expect(view.rebuilds).toBe(1);
    const rewritten = extended.slice();
    rewritten[2] = pool[11];
    expectSameSlots(view, rewritten);
    expect(view.rebuilds).toBe(2);
  });
});
