import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A per-call pids cgroup: `procsFile` receives the first process; `dispose` removes the group. */
export interface PidsCgroup {
  readonly procsFile: string;
  dispose(): void;
}

let counter = 0;
let cachedParent: string | null | undefined;

/**
 * The directory under which this process may create pids cgroups (cgroup v1 `pids` hierarchy,
 * or a v2 group delegating `pids`), or null. Read once from /proc/self/cgroup.
 */
export function pidsCgroupParent(): string | null {
  if (cachedParent !== undefined) return cachedParent;
  cachedParent = null;
  try {
    for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
      const [, controllers, path] = line.split(':');
      if (path === undefined) continue;
      if (controllers.split(',').includes('pids')) {
        cachedParent = join('/sys/fs/cgroup/pids', path);
        break;
      }
      if (controllers === '' && readFileSync(join('/sys/fs/cgroup', path, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids')) {
        cachedParent = join('/sys/fs/cgroup', path);
      }
    }
  } catch {
    // No cgroups here (not Linux, or not mounted).
  }
  if (cachedParent) sweepStale(cachedParent);
  return cachedParent;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes empty groups left by processes that exited before their groups could be removed. */
function sweepStale(parent: string): void {
  try {
    for (const name of readdirSync(parent)) {
      const m = /^nanobot-exec-(\d+)-\d+$/.exec(name);
      if (!m || alive(Number(m[1]))) continue;
      try {
        rmdirSync(join(parent, name));
      } catch {
        // Still busy or not ours to remove.
      }
    }
  } catch {
    // Unreadable parent: nothing to sweep.
  }
}

/** Empty groups kept for reuse: creating and removing a cgroup costs milliseconds per call. */
const pool: string[] = [];
const POOL_MAX = 8;

function isEmpty(dir: string): boolean {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').trim() === '';
  } catch {
    return false;
  }
}

/**
 * A cgroup limited to `limit` processes, so a fork bomb fails with EAGAIN instead of
 * exhausting the machine's pid space (RLIMIT_NPROC does not bind a real root user). Empty
 * groups are reused. Returns undefined when no writable pids hierarchy exists. `dispose` returns
 * the group to the pool once its processes are gone (retrying in the background while the
 * killed ones are reaped), else removes it; it never throws.
 */
export function createPidsCgroup(limit: number): PidsCgroup | undefined {
  const parent = pidsCgroupParent();
  if (!parent) return undefined;
  let dir = pool.pop();
  try {
    if (dir === undefined) {
      dir = join(parent, `nanobot-exec-${process.pid}-${++counter}`);
      mkdirSync(dir);
    }
    writeFileSync(join(dir, 'pids.max'), String(limit));
  } catch {
    try {
      if (dir !== undefined) rmdirSync(dir);
    } catch {
      // Never created.
    }
    return undefined;
  }
  const group = dir;
  return {
    procsFile: join(group, 'cgroup.procs'),
    dispose() {
      let tries = 0;
      const attempt = () => {
        if (isEmpty(group)) {
          if (pool.length < POOL_MAX) pool.push(group);
          else {
            try {
              rmdirSync(group);
            } catch {
              // Removed by someone else, or swept at the next start.
            }
          }
          return;
        }
        // The last processes are still being reaped; leftovers are swept at the next start.
        if (++tries < 50) setTimeout(attempt, 100).unref();
      };
      attempt();
    },
  };
}
