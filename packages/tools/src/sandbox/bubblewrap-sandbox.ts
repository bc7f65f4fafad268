import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createPidsCgroup } from './create-pids-cgroup.js';
import type { Sandbox, SandboxCommand, SpawnPlan } from './sandbox.js';

/** Options of `BubblewrapSandbox`. */
export interface BubblewrapOptions {
  /** The `bwrap` binary (default: found on PATH, else `/usr/bin/bwrap`). */
  readonly bwrapPath?: string;
  /** Share the host's network (default false: a private, empty network namespace). */
  readonly allowNetwork?: boolean;
  /** More host paths visible read-only (widening; the exec tool allows it only unconfined). */
  readonly readOnlyPaths?: readonly string[];
  /** More host paths visible read-write (widening; the exec tool allows it only unconfined). */
  readonly readWritePaths?: readonly string[];
  /** Processes one call may have at once, enforced by a pids cgroup where one is writable (default 512; 0 = no cgroup). */
  readonly pidsLimit?: number;
}

/** Top-level system directories a shell needs; symlinks (merged /usr) are recreated as symlinks. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The only files of /etc a shell and common tools need: name resolution, users without
 * passwords (no shadow), the dynamic linker cache, Debian's alternatives, certificates, time
 * zone. Each is one mount, and mounts are most of bwrap's start-up cost: keep the list short.
 */
const ETC_FILES = [
  'passwd', 'group', 'hosts', 'resolv.conf', 'nsswitch.conf', 'ld.so.cache', 'localtime', 'alternatives', 'ssl',
  'ca-certificates',
];

/** Environment variables the sandbox sets itself, whatever the caller passed. */
const SANDBOX_HOME = '/tmp';

/** `bwrap` on PATH, else the Debian location. */
export function findBwrap(pathEnv = process.env.PATH ?? ''): string {
  for (const dir of pathEnv.split(delimiter)) {
    if (dir && existsSync(join(dir, 'bwrap'))) return join(dir, 'bwrap');
  }
  return '/usr/bin/bwrap';
}

function systemArgs(): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    try {
      const s = lstatSync(dir);
      if (s.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
      else if (s.isDirectory()) args.push('--ro-bind', dir, dir);
    } catch {
      // Absent on this system.
    }
  }
  for (const name of ETC_FILES) if (existsSync(`/etc/${name}`)) args.push('--ro-bind', `/etc/${name}`, `/etc/${name}`);
  return args;
}

let cachedSystemArgs: string[] | undefined;

/**
 * Runs each command under bubblewrap: new user, pid, ipc, uts, cgroup and (unless allowed)
 * network namespaces; all capabilities dropped; read-only `/usr`, `/bin`, `/lib*`, `/sbin` and a
 * handful of `/etc` files; a private `/tmp` (also `$HOME`), its own `/proc` and a minimal `/dev`;
 * the workspace bound read-write at its own path; nothing else of the host. The environment is
 * exactly the caller's (`--clearenv`), and bwrap itself is spawned with that same environment,
 * so even its `/proc/1/environ` holds no secret. `--die-with-parent` plus the pid namespace mean
 * that killing the spawned bwrap kills every process of the call. No `--new-session`: its
 * `setsid` would move the namespace's init out of the spawned process group, and a kill landing
 * before that init sets its own parent-death signal left it (and the command) running, re-parented
 * to init. `startCommand` spawns every plan in a new session with no controlling terminal, which
 * is what `--new-session` guards (TIOCSTI input injection), and one `kill(-pgid)` then reaches
 * every process of the call at once.
 */
export class BubblewrapSandbox implements Sandbox {
  readonly name = 'bubblewrap';
  readonly isolated = true;
  readonly bwrapPath: string;
  readonly #options: BubblewrapOptions;

  constructor(options: BubblewrapOptions = {}) {
    this.#options = { ...options };
    this.bwrapPath = options.bwrapPath ?? findBwrap();
  }

  /** The bwrap arguments for `command` (before any cgroup wrapper); pure apart from realpath. */
  args(command: SandboxCommand): string[] {
    cachedSystemArgs ??= systemArgs();
    const real = (p: string) => {
      try {
        return realpathSync(p);
      } catch {
        return p;
      }
    };
    const workspace = real(command.workspace);
    const args = [
      '--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
      ...(this.#options.allowNetwork ? [] : ['--unshare-net']),
      '--die-with-parent', '--cap-drop', 'ALL', '--hostname', 'sandbox',
      ...cachedSystemArgs,
      '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp',
    ];
    for (const p of this.#options.readOnlyPaths ?? []) args.push('--ro-bind', real(p), real(p));
    args.push('--bind', workspace, workspace);
    for (const p of this.#options.readWritePaths ?? []) args.push('--bind', real(p), real(p));
    args.push('--chdir', real(command.cwd), '--clearenv');
    const env = { ...command.env, HOME: SANDBOX_HOME, TMPDIR: '/tmp' };
    for (const [key, value] of Object.entries(env)) args.push('--setenv', key, value);
    args.push('--', ...command.argv);
    return args;
  }

  /** Spawns bwrap (inside a per-call pids cgroup when one can be made). */
  wrap(command: SandboxCommand): SpawnPlan {
    const args = this.args(command);
    const env = { ...command.env, HOME: SANDBOX_HOME };
    const limit = this.#options.pidsLimit ?? 512;
    const cgroup = limit > 0 ? createPidsCgroup(limit) : undefined;
    if (!cgroup) return { file: this.bwrapPath, args, cwd: '/', env, contained: true };
    // The shell joins the cgroup before exec'ing bwrap, so every process of the call is counted.
    return {
      file: '/bin/sh',
      args: ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, this.bwrapPath, ...args],
      cwd: '/',
      env,
      contained: true,
      dispose: () => cgroup.dispose(),
    };
  }
}
