// What the per-target benchmarks share: the targets they compare, the options every call is
// governed with, and the child process each target is measured in (so one target's calls never
// share the JIT's inline caches or the heap with another's).
import { spawnSync } from 'node:child_process';
import { GOVERN_TARGETS, type GovernOptions, type GovernTarget } from '@nanobot/governor';

/** The targets compared ('any' is the default's union, not a provider). */
export const BENCH_TARGETS: readonly GovernTarget[] = Object.freeze(GOVERN_TARGETS.filter((t) => t !== 'any'));

/** The options each benchmark call is governed with: a window no history here fills. */
export function benchOptions(target: GovernTarget): GovernOptions {
  return { target, contextWindowTokens: 2_000_000, maxOutputTokens: 4096 };
}

/**
 * In the benchmark file `self`: when this process is a child, runs `measure` for its target,
 * prints the result as JSON and returns null; else returns a function that measures a target
 * in a child process of its own (same node flags) and returns what it printed. Contract:
 * `measure` may throw (the child then fails, and so does the parent's call).
 */
export function perTargetChild<T>(self: string, measure: (target: GovernTarget) => T): ((target: GovernTarget) => T) | null {
  if (process.argv[2] === '--child') {
    process.stdout.write(`${JSON.stringify(measure(process.argv[3] as GovernTarget))}\n`);
    return null;
  }
  return (target) => {
    const res = spawnSync(process.execPath, [...process.execArgv, self, '--child', target], { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`the ${target} child failed: ${res.stderr}`);
    return JSON.parse(res.stdout.trim().split('\n').at(-1)!) as T;
  };
}
