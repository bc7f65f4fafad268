import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FILES: Readonly<Record<string, string>> = {
  'README.md': [
    '# Demo project',
    '',
    'A tiny workspace made by `nanobot run --demo`, so the agent has something real to look at.',
    '',
    '- `src/greet.js` prints a greeting',
    '- `todo.txt` lists what is left to do',
    '',
  ].join('\n'),
  'todo.txt': 'write the release notes\nreview the greeting\n',
  'src/greet.js': "export function greet(name) {\n  return `Hello, ${name}!`;\n}\n",
};

/**
 * Makes a fresh temporary workspace with a few small files for the offline demo (nothing of the
 * user's is touched). Returns its absolute path; rejects on I/O errors.
 */
export async function createDemoWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'nanobot-demo-'));
  for (const [path, body] of Object.entries(FILES)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), body);
  }
  return dir;
}

/**
 * Removes the demo's temporary directories. Synchronous so that it also runs from a
 * `process.on('exit')` handler (a second Ctrl-C, a closed pipe); never throws.
 */
export function removeDemoDirs(dirs: readonly string[]): void {
  for (const dir of dirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // Best effort: a directory we cannot remove is left, never an exit error.
    }
  }
}
