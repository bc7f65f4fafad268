import { readdirSync, readFileSync } from 'node:fs';

/** Sends `signal` to every process of the group led by `pid`; a group already gone is fine. */
export function killProcessGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ESRCH' && code !== 'EPERM') throw error;
  }
}

/**
 * Pids (other than ours) whose session or process group is `leader`, read from /proc. A command
 * spawned `detached` leads its own session, and `set -m` jobs, subshells and orphans re-parented
 * to init all keep that session id; only a process that calls `setsid` itself leaves it.
 * Empty where /proc is missing.
 */
export function sessionMembers(leader: number): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields: state ppid pgrp session …
      if (fields[0] === 'Z') continue;
      if (Number(fields[2]) === leader || Number(fields[3]) === leader) out.push(pid);
    } catch {
      // Exited while we looked.
    }
  }
  return out;
}

/**
 * SIGKILLs the process group led by `pid` and, on Linux, every process still in its session
 * (jobs that `set -m` moved to their own groups, orphans): repeated until a pass finds nobody,
 * so processes forked during the kill are caught too. Never throws for processes already gone.
 */
export function killProcessTree(pid: number): void {
  killProcessGroup(pid);
  for (let pass = 0; pass < 20; pass++) {
    const members = sessionMembers(pid);
    if (members.length === 0) return;
    for (const member of members) {
      try {
        process.kill(member, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
}
