import { BubblewrapSandbox, type BubblewrapOptions } from './bubblewrap-sandbox.js';
import { NoSandbox } from './no-sandbox.js';
import { probeBubblewrap, type SandboxProbe } from './probe-bubblewrap.js';
import type { Sandbox, SandboxMode } from './sandbox.js';
import { SandboxUnavailableError } from './sandbox-unavailable-error.js';

/** The sandbox an exec tool will use, and the warning to show when it runs without one. */
export interface SandboxChoice {
  readonly mode: SandboxMode;
  readonly sandbox: Sandbox;
  /** Set when commands run unboxed although a sandbox was wanted or not chosen explicitly. */
  readonly warning?: string;
}

/** Inputs of `selectSandbox`. */
export interface SelectSandboxOptions extends BubblewrapOptions {
  /** Replaces the bwrap probe (tests, other platforms); called at most once. */
  readonly probe?: SandboxProbe;
}

/**
 * Picks the sandbox for `mode`: `none` → `NoSandbox`; `auto` → bubblewrap when the probe
 * says it works, else `NoSandbox` with a warning; `required` → bubblewrap or a thrown
 * `SandboxUnavailableError`.
 */
export function selectSandbox(mode: SandboxMode, options: SelectSandboxOptions = {}): SandboxChoice {
  if (mode === 'none') {
    return { mode, sandbox: new NoSandbox(), warning: 'exec runs without a sandbox (sandbox: none): only the command guard stands between the model and this machine.' };
  }
  const { probe, ...bwrap } = options;
  const result = probe ? probe() : probeBubblewrap(bwrap.bwrapPath);
  if (result.ok) return { mode, sandbox: new BubblewrapSandbox(bwrap) };
  if (mode === 'required') throw new SandboxUnavailableError(result.reason);
  return {
    mode,
    sandbox: new NoSandbox(),
    warning: `exec runs without a sandbox (${result.reason}); only the command guard stands between the model and this machine. Install bubblewrap to box commands.`,
  };
}
