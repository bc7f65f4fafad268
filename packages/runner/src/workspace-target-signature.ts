import { homedir } from 'node:os';
import { resolve } from 'node:path';

const PATH_KEYS = ['path', 'file_path', 'target', 'source', 'destination'] as const;
const SHELL_PATH = /(?:^|[\s='"<>])((?:~[^\s'"]*)|(?:\/[^\s'"]*))/;

function normalise(target: string, cwd: string): string {
  let expanded = target.trim();
  if (expanded === '~' || expanded.startsWith('~/')) expanded = homedir() + expanded.slice(1);
  const resolved = resolve(cwd, expanded).split('\\').join('/');
  return `violation:${resolved.toLowerCase()}`;
}

/**
 * The per-target key used to throttle repeated workspace-boundary attempts: the first non-empty
 * string among `path, file_path, target, source, destination`, or for `exec`/`shell` the first
 * absolute or `~` path in `command` (else `working_dir`), resolved and lower-cased. Null when the
 * call names no target (such calls are not counted). Pure apart from reading the home directory.
 */
export function workspaceTargetSignature(toolName: string, args: unknown, cwd: string = process.cwd()): string | null {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return null;
  const record = args as Record<string, unknown>;
  for (const key of PATH_KEYS) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') return normalise(value, cwd);
  }
  if (toolName === 'exec' || toolName === 'shell') {
    const command = record.command ?? record.cmd;
    if (typeof command === 'string') {
      const match = SHELL_PATH.exec(command);
      if (match) return normalise(match[1], cwd);
    }
    const workdir = record.working_dir ?? record.workdir;
    if (typeof workdir === 'string' && workdir.trim() !== '') return normalise(workdir, cwd);
  }
  return null;
}
