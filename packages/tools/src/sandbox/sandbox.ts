/** How `exec` chooses its sandbox: when available (`auto`), always (`required`) or never (`none`). */
export type SandboxMode = 'auto' | 'required' | 'none';

/** One command a sandbox is asked to wrap. */
export interface SandboxCommand {
  /** The program and its arguments, e.g. `['/bin/bash', '-c', 'ls']`. */
  readonly argv: readonly string[];
  /** Working directory of the command (inside `workspace` when confined). */
  readonly cwd: string;
  /** The whole environment the command may see (already built from an allowlist). */
  readonly env: Readonly<Record<string, string>>;
  /** The directory bound read-write; nothing else of the host is writable. */
  readonly workspace: string;
}

/** What to spawn for a wrapped command: run `file` with `args` in `cwd` under `env`. */
export interface SpawnPlan {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /**
   * True when the process and everything it starts die with it (a pid namespace): killing the
   * spawned process group is then enough, and no job can outlive the call.
   */
  readonly contained: boolean;
  /** Called once the call is over (processes gone or abandoned); must not throw; not awaited. */
  readonly dispose?: () => void;
}

/**
 * A way to run a command in a box. `wrap` is pure apart from preparing per-call resources
 * (released by `SpawnPlan.dispose`); it throws only for a command it cannot box. Implementations:
 * `BubblewrapSandbox` (Linux), `NoSandbox`; a macOS Seatbelt profile fits the same shape.
 */
export interface Sandbox {
  /** Short name shown to users: `bubblewrap`, `none`, … */
  readonly name: string;
  /** Whether commands are isolated from the host (false only for `NoSandbox`). */
  readonly isolated: boolean;
  wrap(command: SandboxCommand): SpawnPlan;
}
