#!/usr/bin/env node
// The `nanobot` executable: wires the real process into runCli and exits with its status once
// stdout and stderr have been flushed (a pipe reader must get every line).
import { invocationWords } from './invocation-name.js';
import { runCli } from './main.js';

// A reader that went away (`nanobot run --json | head`) ends the program quietly with status 0,
// as other command-line tools do; any other stream error is still reported.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') process.exit(0);
    throw error;
  });
}

const listeners = new Set<() => void>();
process.on('SIGINT', () => {
  for (const listener of [...listeners]) listener();
  if (listeners.size === 0) process.exit(130);
});

const code = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  // The root `pnpm nanobot` script runs in the repository root; the user's directory is INIT_CWD.
  cwd: process.env.npm_lifecycle_event === 'nanobot' && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd(),
  invokedAs: invocationWords(process.env, process.argv[1], process.env.INIT_CWD ?? process.cwd()),
  onInterrupt(handler) {
    listeners.add(handler);
    return () => listeners.delete(handler);
  },
});
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
