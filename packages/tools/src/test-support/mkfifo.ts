import { execFileSync } from 'node:child_process';

/** Creates a named pipe (Node has no mkfifo of its own). */
export async function mkfifo(path: string): Promise<void> {
  execFileSync('mkfifo', [path]);
}
