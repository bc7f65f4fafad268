import { accessSync, constants as fsConstants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The descriptor number on which a watched command's sidecar waits for its owner to go. */
export const OWNER_WATCH_FD = 3;

/**
 * The `sh -c` script that starts a command under an owner watch. It forks a sidecar (in the
 * command's session and process group, stdio on /dev/null so it holds none of the command's
 * pipes), closes fd 3 and execs the command, which so keeps the spawned pid. The sidecar reads
 * fd 3, whose other end only the owner holds (close-on-exec there): a line means "released"
 * (it exits, jobs live on); end of file means the owner is gone — exited, crashed or SIGKILLed,
 * when no exit handler runs — or the call is over, and it SIGKILLs every process of the
 * session (`set -m` jobs, read from /proc, twice to catch forks during the first pass), then
 * its whole process group, itself included. The pipe exists before the fork, so there is no
 * window in which an owner death goes unnoticed. Only POSIX sh and `kill` are needed.
 */
export const OWNER_WATCH_SCRIPT = [
  '(read -r _ <&3 && exit 0',
  ' read -r me _ </proc/self/stat',
  ' for pass in 1 2; do',
  '  for d in /proc/[0-9]*; do',
  '   read -r l <"$d/stat" || continue',
  '   set -- ${l##*\\) }',
  '   [ "$4" = "$$" ] && [ "${d#/proc/}" != "$me" ] && kill -9 "${d#/proc/}"',
  '  done',
  ' done',
  ' kill -9 0',
  ') </dev/null >/dev/null 2>&1 &',
  'exec 3<&- "$@"',
].join('\n');

/** `$0` of the watching shell, so `ps` shows what it is. */
const WATCH_NAME = 'nanobot-exec-watch';

/** Whether `file` can be executed: as a path, or found on `pathEnv` like `execvp` would. */
export function isExecutable(file: string, pathEnv: string | undefined): boolean {
  const ok = (candidate: string) => {
    try {
      accessSync(candidate, fsConstants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (file.includes('/')) return ok(file);
  return (pathEnv ?? '').split(delimiter).some((dir) => dir !== '' && ok(join(dir, file)));
}

/**
 * `file args` wrapped in the owner watch (`/bin/sh -c OWNER_WATCH_SCRIPT`), or unchanged when
 * there is no `/bin/sh` or `file` is not executable — then the spawn itself fails with the
 * usual `ENOENT`, and there is no process to watch. Pure apart from `access` checks.
 */
export function withOwnerWatch(file: string, args: readonly string[], pathEnv: string | undefined): { file: string; args: string[]; watched: boolean } {
  if (!isExecutable('/bin/sh', undefined) || !isExecutable(file, pathEnv)) return { file, args: [...args], watched: false };
  return { file: '/bin/sh', args: ['-c', OWNER_WATCH_SCRIPT, WATCH_NAME, file, ...args], watched: true };
}
