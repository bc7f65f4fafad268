// Session store benchmarks: the cost of appending one message must not depend on the session's
// length (the reference rewrites the whole file on every save), plus load and getHistory on a
// 10,000-message session. Prints absolute figures and ratios measured in this one run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonlSessionStore, type Session } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'nb-bench-sessions-'));

function message(i: number): { role: string; content: string } {
  return i % 2 === 0
    ? { role: 'user', content: `Question ${i}: ${'how do I configure the build so that it works? '.repeat(3)}` }
    : { role: 'assistant', content: `Answer ${i}: ${'You set the option in the config file and run it again. '.repeat(4)}` };
}

async function seeded(store: JsonlSessionStore, key: string, count: number): Promise<Session> {
  const { session } = await store.load(key);
  for (let i = 0; i < count; i += 1) session.messages.push({ ...message(i), timestamp: '2026-03-01T09:00:00.000000' });
  await store.save(session);
  return session;
}

async function timeAppends(store: JsonlSessionStore, session: Session, rounds: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < rounds; i += 1) {
    session.addMessage('user', `follow-up ${i}`);
    await store.save(session);
  }
  return (performance.now() - start) / rounds;
}

async function main(): Promise<void> {
  for (const fsync of ['never', 'always'] as const) {
    const store = new JsonlSessionStore({ dir: join(dir, fsync), fsync });
    const small = await seeded(store, 'bench:small', 100);
    const large = await seeded(store, 'bench:large', 10_000);
    const rounds = fsync === 'always' ? 100 : 400;
    await timeAppends(store, small, 20); // warm-up
    await timeAppends(store, large, 20);
    // Interleave the two measurements so machine noise hits both alike.
    let smallTotal = 0;
    let largeTotal = 0;
    for (let r = 0; r < 4; r += 1) {
      smallTotal += await timeAppends(store, small, rounds / 4);
      largeTotal += await timeAppends(store, large, rounds / 4);
    }
    const smallMs = smallTotal / 4;
    const largeMs = largeTotal / 4;
    console.log(
      `append 1 message (fsync=${fsync}): 100-msg session ${smallMs.toFixed(3)} ms, 10,000-msg session ${largeMs.toFixed(3)} ms, ` +
        `ratio large/small ${(largeMs / smallMs).toFixed(2)}`,
    );
    // What the reference pays per save: an atomic rewrite of the whole file.
    const rewrites = fsync === 'always' ? 5 : 10;
    const start = performance.now();
    for (let i = 0; i < rewrites; i += 1) await store.compact(large);
    const rewriteMs = (performance.now() - start) / rewrites;
    console.log(
      `  whole-file rewrite of the 10,000-msg session (reference-style save, fsync=${fsync}): ${rewriteMs.toFixed(2)} ms, ` +
        `${(rewriteMs / largeMs).toFixed(0)}x an append`,
    );
  }

  const store = new JsonlSessionStore({ dir: join(dir, 'never'), fsync: 'never' });
  let loaded: Session | undefined;
  const loads = 10;
  let start = performance.now();
  for (let i = 0; i < loads; i += 1) loaded = (await store.load('bench:large')).session;
  const loadMs = (performance.now() - start) / loads;
  console.log(`load a ${loaded!.messages.length}-message session: ${loadMs.toFixed(2)} ms`);

  const runs = 20;
  start = performance.now();
  let rows = 0;
  for (let i = 0; i < runs; i += 1) rows = loaded!.getHistory().length;
  const historyMs = (performance.now() - start) / runs;
  start = performance.now();
  let bounded = loaded!.getHistory({ maxTokens: 100_000 }).length;
  const coldMs = performance.now() - start;
  start = performance.now();
  for (let i = 0; i < runs; i += 1) bounded = loaded!.getHistory({ maxTokens: 100_000 }).length;
  const boundedMs = (performance.now() - start) / runs;
  loaded!.lastConsolidated = 9_000;
  start = performance.now();
  let archived = 0;
  for (let i = 0; i < runs; i += 1) archived = loaded!.getHistory().length;
  const archivedMs = (performance.now() - start) / runs;
  console.log(`getHistory(): ${rows} rows in ${historyMs.toFixed(2)} ms`);
  console.log(`getHistory({ maxTokens: 100000 }) first call (token estimates computed): ${bounded} rows in ${coldMs.toFixed(2)} ms`);
  console.log(`getHistory({ maxTokens: 100000 }) later calls (estimates cached per stored message): ${boundedMs.toFixed(2)} ms (ratio to unbounded ${(boundedMs / historyMs).toFixed(2)})`);
  console.log(`getHistory() with lastConsolidated=9000: ${archived} rows in ${archivedMs.toFixed(2)} ms`);
  console.log(`load / getHistory ratio: ${(loadMs / historyMs).toFixed(2)}`);
  rmSync(dir, { recursive: true, force: true });
}

await main();
