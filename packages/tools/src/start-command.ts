import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { killProcessGroup, killProcessTree } from './kill-process-tree.js';
import { NoSandbox } from './no-sandbox.js';
import type { Sandbox, SpawnPlan } from './sandbox.js';

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
  readonly child: ChildProcess;
  readonly plan: SpawnPlan;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The command's stdin when started with `stdin: 'pipe'`, else null. */
  readonly stdin: Writable | null;
  /** SIGKILLs the command and every process it started (see `startCommand`); never throws. */
  killAll(): void;
}

/**
 * The one place exec spawns: wraps the shell command with `sandbox`, spawns it in its own
 * session and process group (`detached`) with piped stdout and stderr, and returns a `killAll`
 * that SIGKILLs what belongs to it: under a containing sandbox the spawned process (its pid
 * namespace dies with it), otherwise the group and every process still in its session.
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
  const child = spawn(plan.file, [...plan.args], {
    cwd: plan.cwd,
    env: { ...plan.env },
    detached: true,
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
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
        if (plan.contained) killProcessGroup(pid);
        else killProcessTree(pid);
      } catch {
        // Nothing more we can do for a process we may not signal.
      }
    },
  };
}
