// What the per-target benchmarks share: the targets they compare, the options every call is
// governed with, and the child process each target is measured in (so one target's calls never
// share the JIT's inline caches or the heap with another's).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
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

/** Children serving one target each, named by `K` (see {@link perTargetServer}). */
export interface TargetChildren<Q, A, K extends string = GovernTarget> {
  /** The answer of child `name` to `request`. Contract: one request at a time per child (await each). */
  ask(name: K, request: Q): Promise<A>;
  /** Ends every child. */
  close(): void;
}

/**
 * The node flags of a child that runs the packages as published: the parent's, without the
 * "source" export condition (scripts/bench.mjs runs benchmarks with it, so they need no build).
 * The built JavaScript is what applications run; tsx's transform of the TypeScript sources
 * keeps function names by wrapping every closure made at run time in a call that defines its
 * `name` (Object.defineProperty), a cost the built code does not have and that falls unevenly
 * on code paths by how many closures they make per call (~3.5 µs a grown 'gemini' call
 * against ~1 µs for 'openai', CPU profile of the TypeScript sources).
 */
export function builtPackagesFlags(): string[] {
  return process.execArgv.filter((flag) => flag !== '--conditions=source');
}

/**
 * In the benchmark file `self`: when this process is a serving child, answers each request its
 * parent sends with `answer(name, request)`, one at a time, and returns null; else returns a
 * function that starts one such child per name (node flags `flags`, by default the parent's). A
 * name is a target, or another name the benchmark maps to one (two children of one target: a
 * control whose ratio to the first shows the measurement's own spread).
 * A child stays alive between requests, so a benchmark can take short measurements of every
 * target in turn: load on the machine that comes and goes then hits each target's measurements
 * alike, where a process per measurement (seconds each) let it hit one target's and not
 * another's. Contract: `answer` may throw (the child exits with the error on stderr, and the
 * parent's `ask` rejects).
 */
export function perTargetServer<Q, A, K extends string = GovernTarget>(self: string, answer: (name: K, request: Q) => A, flags: readonly string[] = process.execArgv): ((names: readonly K[]) => TargetChildren<Q, A, K>) | null {
  if (process.argv[2] === '--serve') {
    const name = process.argv[3] as K;
    process.on('message', (request) => {
      process.send!(answer(name, request as Q) as object);
    });
    return null;
  }
  return (names) => {
    const children = new Map<K, ChildProcess>();
    for (const name of names) children.set(name, spawn(process.execPath, [...flags, self, '--serve', name], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    return {
      ask: (name, request) => new Promise<A>((resolve, reject) => {
        const child = children.get(name)!;
        const onExit = (code: number | null) => reject(new Error(`the ${name} child exited (${code}) before answering`));
        child.once('exit', onExit);
        child.once('message', (reply) => {
          child.off('exit', onExit);
          resolve(reply as A);
        });
        child.send(request as object);
      }),
      close: () => {
        for (const child of children.values()) child.disconnect();
      },
    };
  };
}
