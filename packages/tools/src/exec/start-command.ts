import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { killProcessTree } from './kill-process-tree.js';
import { NoSandbox } from '../sandbox/no-sandbox.js';
import { OWNER_WATCH_FD, withOwnerWatch } from './owner-watch.js';
import type { Sandbox, SpawnPlan } from '../sandbox/sandbox.js';

/** Inputs of `startCommand`: what to run, where, and through which sandbox. */
export interface StartCommandOptions {
  /** argv prefix of the shell, e.g. `['/bin/bash', '-c']`; the command is appended. */
  readonly shell: readonly string[];
  readonly command: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Where the command runs (default `NoSandbox`). */
  readonly sandbox?: Sandbox;
  /** The directory a sandbox binds read-write (default `cwd`). */
  readonly workspace?: string;
  /** `pipe` gives the command a writable stdin (background sessions); default `ignore`. */
  readonly stdin?: 'ignore' | 'pipe';
}

/** A spawned command: the child with piped stdout/stderr, and how to end everything it started. */
export interface StartedCommand {
  /**
   * The spawned process. Listen for `exit` and the pipes' `close`: the child's own `close` also
   * waits for the owner watch's pipe, which ends only with `endWatch` (or this process).
   */
  readonly child: ChildProcess;
  readonly plan: SpawnPlan;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The command's stdin when started with `stdin: 'pipe'`, else null. */
  readonly stdin: Writable | null;
  /** SIGKILLs the command and every process it started (see `startCommand`); never throws. */
  killAll(): void;
  /**
   * Ends the owner watch once the call is over: with `keepJobs` the sidecar exits and jobs left
   * behind live on (unwatched); otherwise it kills whatever is still in the command's session.
   * Idempotent; never throws.
   */
  endWatch(keepJobs: boolean): void;
}

/**
 * The one place exec spawns: wraps the shell command with `sandbox`, spawns it in its own
 * session and process group (`detached`) with piped stdout and stderr under an owner watch
 * (`withOwnerWatch`: a sidecar in the same group SIGKILLs the session when this process dies
 * however it dies, SIGKILL included), and returns a `killAll` that SIGKILLs the group and every
 * process still in the session — one path for boxed and unboxed commands (a box keeps its whole
 * pid namespace in the group; what is inside dies with it anyway).
 * Throws what `sandbox.wrap` throws; spawn failures arrive as the child's `error` event.
 */
export function startCommand(options: StartCommandOptions): StartedCommand {
  const sandbox = options.sandbox ?? new NoSandbox();
  const plan = sandbox.wrap({
    argv: [...options.shell, options.command],
    cwd: options.cwd,
    env: options.env,
    workspace: options.workspace ?? options.cwd,
  });
  const watch = withOwnerWatch(plan.file, plan.args, plan.env.PATH);
  const child = spawn(watch.file, watch.args, {
    cwd: plan.cwd,
    env: { ...plan.env },
    detached: true,
    stdio: watch.watched ? [options.stdin ?? 'ignore', 'pipe', 'pipe', 'pipe'] : [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
  // Our end of the watch pipe: never read, and it must not keep the event loop alive.
  const ownerEnd = watch.watched ? (child.stdio[OWNER_WATCH_FD] as Socket | null) : null;
  ownerEnd?.on('error', () => undefined);
  ownerEnd?.unref();
  const pid = child.pid;
  return {
    child,
    plan,
    stdout: child.stdout as Readable,
    stderr: child.stderr as Readable,
    stdin: child.stdin,
    killAll() {
      if (pid === undefined) return;
      try {
        killProcessTree(pid);
      } catch {
        // Nothing more we can do for a process we may not signal.
      }
    },
    endWatch(keepJobs) {
      if (!ownerEnd || ownerEnd.destroyed) return;
      if (keepJobs) ownerEnd.end('\n', () => ownerEnd.destroy());
      else ownerEnd.destroy();
    },
  };
}
