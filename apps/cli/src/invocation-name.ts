import { basename, dirname, isAbsolute, relative } from 'node:path';

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * How the user started the CLI, as a command they can type again (for hints such as "continue
 * with: … chat --session x"): `pnpm nanobot` when run through the repository's root script (`pnpm -C <repo> nanobot` from
 * outside the repository),
 * `nanobot` when a linked `nanobot` binary was run, otherwise `node <path to bin.js>` (relative
 * to `cwd` when that is shorter). Pure.
 */
export function invocationName(env: Record<string, string | undefined>, script: string | undefined, cwd: string): string {
  if (env.npm_lifecycle_event === 'nanobot' || env.npm_lifecycle_event === 'demo') {
    // Started from outside the repository (`pnpm -C <repo> nanobot`): the hint needs the -C too.
    const root = env.npm_package_json ? dirname(env.npm_package_json) : undefined;
    const from = env.INIT_CWD ?? cwd;
    return root && !inside(from, root) ? `pnpm -C ${/\s/.test(root) ? JSON.stringify(root) : root} nanobot` : 'pnpm nanobot';
  }
  if (script === undefined || script === '') return 'nanobot';
  if (basename(script) === 'nanobot') return 'nanobot';
  const rel = relative(cwd, script);
  const path = rel !== '' && !isAbsolute(rel) && rel.length < script.length ? rel : script;
  return `node ${/\s/.test(path) ? JSON.stringify(path) : path}`;
}
