import { readdir, readFile, stat } from 'node:fs/promises';
import { createExecTool } from '../exec/exec-tool.js';
import type { ExecOptions } from '../exec/exec-tool.js';
import { probeBubblewrap } from '../sandbox/probe-bubblewrap.js';
import type { Tool } from '@nanobot/tools-core';

/** The two ways exec runs: boxed by bubblewrap (must be installed) and unboxed. */
export const EXEC_MODES = ['required', 'none'] as const;
export type ExecMode = (typeof EXEC_MODES)[number];

/**
 * Fails loudly, not silently skipped, when bubblewrap is missing: `.ci/run` installs it.
 */
export function assertBubblewrap(): void {
  const probe = probeBubblewrap();
  if (!probe.ok) throw new Error(`bubblewrap is required for these tests (${probe.reason}): apt-get install -y bubblewrap`);
}

/** An exec tool in `mode`, warnings swallowed so outputs compare exactly. */
export function execTool(mode: ExecMode, options: ExecOptions = {}): Tool<any> {
  if (mode === 'required') assertBubblewrap();
  return createExecTool({ sandbox: mode, onWarning: () => undefined, ...options });
}

/** Whether a pid is gone; a zombie (exited, not yet reaped by init) counts as gone. */
export async function isGone(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const s = await readFile(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Waits (bounded) for a condition the kernel settles asynchronously; not a timing assertion. */
export async function eventually(check: () => Promise<boolean>, attempts = 100): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** Size of a file, 0 when missing. */
export async function sizeOf(path: string): Promise<number> {
  return (await stat(path).catch(() => undefined))?.size ?? 0;
}

/**
 * Whether a file some process appends to every 100 ms stopped growing: its size is sampled,
 * then again after `quietMs` (ten ticks by default). Proves no writer survived.
 */
export async function stoppedGrowing(path: string, quietMs = 1000): Promise<boolean> {
  // Let a write already in flight land first.
  await new Promise((r) => setTimeout(r, 200));
  const before = await sizeOf(path);
  await new Promise((r) => setTimeout(r, quietMs));
  return (await sizeOf(path)) === before;
}

/** A shell loop appending a line to `file` every 100 ms, forever. */
export const ticker = (file: string) => `(while :; do echo t >> '${file}'; sleep 0.1; done)`;

/**
 * Live (non-zombie) processes whose command line contains `marker`, from /proc: finds every
 * process of a session (the launcher, bwrap and its namespace's init, the shell, its jobs and
 * the owner watch) wherever it was re-parented to.
 */
export async function processesWith(marker: string): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = await readFile(`/proc/${name}/cmdline`, 'latin1');
      if (cmdline.includes(marker) && !(await isGone(Number(name)))) out.push(Number(name));
    } catch {
      // Exited while we looked.
    }
  }
  return out;
}

/** A `sleep` duration unique to this call (e.g. `300.123456`): its text marks a session's processes. */
export function uniqueSleep(): string {
  return `300.${String(process.pid % 1000).padStart(3, '0')}${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}`;
}

/** SIGKILLs every live process carrying `marker` (a test's clean-up, pass or fail). */
export async function killMarked(marker: string): Promise<void> {
  for (const pid of await processesWith(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
