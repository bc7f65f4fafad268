import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReportedMessage } from '../report/govern-report.js';
import { EntryLog } from './entry-log.js';

/** An entry naming where and when it was made (the model compares them by value). */
const entry = (index: number, stamp: number): ReportedMessage => Object.freeze({ index, role: 'tool', reason: `r${stamp}` as ReportedMessage['reason'] });

type Op =
  | { kind: 'grow'; by: number }
  | { kind: 'set'; at: number }
  | { kind: 'truncate'; to: number }
  | { kind: 'list'; n: number; first: boolean }
  | { kind: 'read'; which: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('grow' as const), by: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(40) }),
  fc.record({ kind: fc.constant('truncate' as const), to: fc.nat(40) }),
  fc.record({ kind: fc.constant('list' as const), n: fc.nat(40), first: fc.boolean() }),
  fc.record({ kind: fc.constant('read' as const), which: fc.nat(20) }),
);

/**
 * Runs `ops` on a log (lazy: entries made from `state`, which the "memo" cuts back after the
 * log, as a memo does; eager: pushed) and on a model that copies every list when handed out.
 * Every list, read whenever, must equal the model's copy.
 */
function check(ops: readonly Op[], lazy: boolean): { made: number } {
  let stamp = 0;
  let made = 0;
  const state: ReportedMessage[] = [];
  const log = new EntryLog(lazy ? (i) => { made++; return state[i]; } : null);
  const handed: { build: () => readonly ReportedMessage[]; want: readonly ReportedMessage[] }[] = [];
  for (const o of ops) {
    if (o.kind === 'grow') {
      for (let k = 0; k < o.by; k++) {
        const e = entry(state.length, stamp++);
        state.push(e);
        if (!lazy) log.push(e);
      }
      if (lazy) log.growTo(state.length);
    } else if (o.kind === 'set') {
      if (lazy) continue; // the lazy memo never rewrites
      const at = Math.min(o.at, state.length);
      const e = entry(at, stamp++);
      log.set(at, e);
      state[at] = e;
    } else if (o.kind === 'truncate') {
      log.truncate(o.to);
      if (o.to < state.length) state.length = o.to;
    } else if (o.kind === 'list') {
      const n = Math.min(o.n, state.length);
      const first = o.first ? entry(-1, stamp++) : null;
      handed.push({ build: log.list(n, first), want: first === null ? state.slice(0, n) : [first, ...state.slice(0, n)] });
    } else if (handed.length > 0) {
      const h = handed[o.which % handed.length];
      const list = h.build();
      expect(list).toEqual(h.want);
      // Built twice in a row, the same array (reports share their lists).
      expect(h.build()).toBe(list);
    }
    expect(log.length).toBe(state.length);
  }
  for (const h of handed) {
    expect(h.build()).toEqual(h.want);
    expect(Object.isFrozen(h.build())).toBe(true);
  }
  for (let i = 0; i < state.length; i++) expect(log.at(i)).toBe(state[i]);
  return { made };
}

describe('EntryLog', () => {
  it('hands out lists that read, whenever built, the entries they held when handed out (eager and lazy logs)', () => {
    fc.assert(fc.property(fc.array(op, { maxLength: 60 }), fc.boolean(), (ops, lazy) => { check(ops, lazy); }), { numRuns: 500 });
  });

  it('a lazy log cut back makes only the handed-out entries it cuts, and the rest when a list holding them is read', () => {
    // A memo's cold call (10,000 changes, the list handed out), then a grown call that cuts one.
    let made = 0;
    const state = Array.from({ length: 10_000 }, (_, i) => entry(i, i));
    const log = new EntryLog((i) => { made++; return state[i]; });
    log.growTo(10_000);
    const first = log.list();
    log.truncate(9_999);
    expect(made).toBe(1);
    state[9_999] = entry(9_999, -1);
    log.growTo(10_000);
    const second = log.list();
    expect(made).toBe(1);
    expect(first()[9_999]).toEqual(entry(9_999, 9_999));
    expect(made).toBe(10_000);
    expect(second()[9_999]).toEqual(entry(9_999, -1));
    expect(made).toBe(10_001);
    expect(second()).toBe(second());
  });
});
