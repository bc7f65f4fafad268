/** Sandboxes for exec: bubblewrap, none, probing and choosing one, a pids cgroup. */
export type { Sandbox, SandboxCommand, SandboxMode, SpawnPlan } from './sandbox.js';
export { BubblewrapSandbox, findBwrap } from './bubblewrap-sandbox.js';
export type { BubblewrapOptions } from './bubblewrap-sandbox.js';
export { NoSandbox } from './no-sandbox.js';
export { probeBubblewrap } from './probe-bubblewrap.js';
export type { SandboxProbe, SandboxProbeResult } from './probe-bubblewrap.js';
export { selectSandbox } from './select-sandbox.js';
export type { SandboxChoice, SelectSandboxOptions } from './select-sandbox.js';
export { SandboxUnavailableError } from './sandbox-unavailable-error.js';
export { createPidsCgroup } from './create-pids-cgroup.js';
export type { PidsCgroup } from './create-pids-cgroup.js';
