import { accessSync, constants, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join, relative } from 'node:path';

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** What {@link invocationWords} reads besides the environment. Tests pass their own. */
export interface InvocationProbe {
  /** Whether `path` is an executable file. Must not throw. */
  isExecutable?: (path: string) => boolean;
  /** Whether two paths are the same file. Must not throw. */
  isSameFile?: (a: string, b: string) => boolean;
}

// Directories package managers put in front of PATH for a script (`node_modules/.bin`, npx's
// cache, pnpm's node-gyp shims): not the user's own shell, so a `pnpm` found only there is not
// one the user can type.
const INJECTED = /([\\/]node_modules[\\/]\.bin$)|([\\/]_npx[\\/])|node-gyp-bin/;

function onUserPath(command: string, pathEnv: string | undefined, isExecutable: (path: string) => boolean): string | null {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (dir === '' || INJECTED.test(dir)) continue;
    const candidate = join(dir, command);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

/**
 * How the user started the CLI, as the words of a command they can type again in the same shell
 * (for hints such as "resume with: … chat --session x"), detected from what the package manager
 * and Node report, not assumed:
 * - through the repository's root script (`npm_lifecycle_event` `nanobot`/`demo`): the package
 *   manager that ran it (`npm_config_user_agent`): `pnpm nanobot` when a `pnpm` is on the user's
 *   own PATH and was not started by npx, else `npx -y pnpm@<its version> nanobot`; `npm run
 *   nanobot --`; with `-C <repo>` (`--prefix` for npm) when started from outside the repository;
 * - `npx nanobot` when npm exec ran an installed `nanobot`;
 * - `nanobot` when the `nanobot` on PATH is the one running, else the path of the `nanobot`
 *   link that was run;
 * - otherwise `node <path to bin.js>` (relative to `cwd` when that is shorter).
 */
export function invocationWords(env: Record<string, string | undefined>, script: string | undefined, cwd: string, probe: InvocationProbe = {}): string[] {
  const isExecutable = probe.isExecutable ?? executable;
  const isSame = probe.isSameFile ?? sameFile;
  // A path relative to the shell's directory when that is shorter; `./` when run as a command.
  const shortest = (path: string, asCommand: boolean): string => {
    const rel = relative(cwd, path);
    if (rel === '' || isAbsolute(rel) || rel.length >= path.length) return path;
    return asCommand && !rel.startsWith('.') ? `./${rel}` : rel;
  };
  if (env.npm_lifecycle_event === 'nanobot' || env.npm_lifecycle_event === 'demo') {
    const root = env.npm_package_json ? dirname(env.npm_package_json) : undefined;
    const from = env.INIT_CWD ?? cwd;
    const outside = root !== undefined && !inside(from, root);
    const agent = /^(pnpm|npm|yarn)\/(\S+)/.exec(env.npm_config_user_agent ?? '');
    if (agent?.[1] === 'npm') return ['npm', ...(outside ? ['--prefix', root] : []), 'run', 'nanobot', '--'];
    const viaNpx = /[\\/]_npx[\\/]/.test(env.npm_execpath ?? '') || onUserPath('pnpm', env.PATH, isExecutable) === null;
    const pnpm = viaNpx && agent?.[1] === 'pnpm' ? ['npx', '-y', `pnpm@${agent[2]}`] : ['pnpm'];
    return [...pnpm, ...(outside ? ['-C', root] : []), 'nanobot'];
  }
  if (script === undefined || script === '') return ['nanobot'];
  if (basename(script) === 'nanobot') {
    if (env.npm_command === 'exec') return ['npx', 'nanobot'];
    const found = onUserPath('nanobot', env.PATH, isExecutable);
    return found !== null && isSame(found, script) ? ['nanobot'] : [shortest(script, true)];
  }
  return ['node', shortest(script, false)];
}
