// What one Governor keeps for a conversation, per target: a 10,000-message history governed
// once, then grown by one request point per call 200 times, as a runner does. A Governor keeps
// 256 conversations by default, so this is what a busy server holds per conversation; and what
// a Governor keeps for good is what every young-generation collection of a grown call copies
// and every full one marks. Prints MB and the ratio to 'openai' measured in this run; asserts
// nothing.
//
// Each target is measured in a process of its own: the JS heap after two forced collections,
// before and after one Governor governs the history and its 200 requests. A throwaway Governor
// governs the same messages first, so what the messages themselves come to hold (the
// estimator's per-message entries, which every Governor shares) is not counted; a renaming
// target's copies are, being the Governor's. One process per figure; the same code measured
// twice differed by up to 0.2 MB.
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { createGovernor, type Governor, type GovernTarget } from '@nanobot/governor';
import type { Message } from '@nanobot/schema';
import { mixedFamilyHistory, requestPoints } from '@nanobot-internal/test-support';
import { BENCH_TARGETS, benchOptions, perTargetChild } from './per-target-child.js';

const N = 10_000;
const GROWN_CALLS = 200;
const options = benchOptions;

/** The history and its 200 grown requests governed by `governor`. */
function converse(governor: Governor, history: readonly Message[], points: readonly number[], target: GovernTarget): void {
  governor.govern(history.slice(0, N), options(target));
  for (let i = 0; i < GROWN_CALLS; i++) governor.govern(history.slice(0, points[i]!), options(target));
}

/**
 * {@link converse} with a Governor dropped when it returns. Made in a frame of its own: a
 * Governor made as an argument in the measuring function stayed in that frame's registers, alive
 * through the measurement, and what the measured Governor kept came out as ~0.1 MB.
 */
function converseOnce(history: readonly Message[], points: readonly number[], target: GovernTarget): void {
  converse(createGovernor(), history, points, target);
}

/** Bytes of JS heap one Governor keeps for the conversation (see the file comment). */
function measure(target: GovernTarget): number {
  // The benchmark runner starts node without --expose-gc: the flag is set now, and `gc` taken
  // from a new context, where it is defined once the flag is on.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const history = mixedFamilyHistory(N + 4 * (GROWN_CALLS + 50), 7) as Message[];
  const points = requestPoints(history, N);
  converseOnce(history, points, target);
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const governor = createGovernor();
  converse(governor, history, points, target);
  gc();
  gc();
  const kept = process.memoryUsage().heapUsed - before;
  // Both stay alive until here: what is measured is what they hold.
  if (governor.size === 0 || history.length === 0) throw new Error('nothing governed');
  return kept;
}

const run = perTargetChild(fileURLToPath(import.meta.url), measure);
if (run !== null) {
  const targets = BENCH_TARGETS;
  const kept = new Map(targets.map((target) => [target, run(target)] as const));
  const base = kept.get('openai')!;
  console.log(`what one Governor keeps for a ${N.toLocaleString('en')}-message conversation after ${GROWN_CALLS} grown requests, per target (a process each)`);
  console.log('| target | kept | ratio to `openai` |');
  console.log('| --- | ---: | ---: |');
  for (const target of targets) console.log(`| \`${target}\` | ${(kept.get(target)! / 2 ** 20).toFixed(1)} MB | ${(kept.get(target)! / base).toFixed(2)}× |`);
}
