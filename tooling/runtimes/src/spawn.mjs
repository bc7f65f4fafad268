// Child processes with collected output, a deadline, and no leftovers.
import { spawn } from 'node:child_process';

/**
 * Runs `cmd args` to completion: `{ code, signal, stdout, stderr, ms, timedOut }`. Killed (with
 * its process group) after `timeoutMs`. Never rejects for a failing command; only for one that
 * cannot start.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number }} [options]
 * @returns {Promise<{ code: number | null, signal: string | null, stdout: string, stderr: string, ms: number, timedOut: boolean }>}
 */
export function run(cmd, args, { cwd, env = process.env, timeoutMs = 600_000 } = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const out = [];
    const err = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), ms: Date.now() - started, timedOut });
    });
  });
}

/**
 * Starts a long-running `cmd args` (a server): `{ child, stderr(), exited }` where `exited` is a
 * promise of the exit code. Stop it with {@link killGroup}.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv }} [options]
 */
export function start(cmd, args, { cwd, env = process.env } = {}) {
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const err = [];
  child.stdout.on('data', (d) => err.push(d));
  child.stderr.on('data', (d) => err.push(d));
  const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, output: () => Buffer.concat(err).toString('utf8') };
}

/** Kills a child started by this module and everything it started (its process group). */
export function killGroup(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** The last `n` non-empty lines of a process's output, for error messages. */
export function tail(text, n = 6) {
  return text.split('\n').map((l) => l.trimEnd()).filter(Boolean).slice(-n).join('\n');
}
