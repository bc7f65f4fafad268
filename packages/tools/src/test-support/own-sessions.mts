// Run by exec-session-exit.test.ts in a child process (through tsx): the owner of background
// sessions. Starts, boxed and unboxed, a session whose shell forks `sleep <marker>` and one whose
// `set -m` job (its own process group) does, waits until each printed `up`, prints the sessions'
// host pids as JSON and waits: it exits without killing them when a line arrives on stdin, or is
// killed by a signal. argv: <marker>.
import { ExecSessionManager } from '../exec/exec-session-manager.js';
import { NoSandbox } from '../sandbox/no-sandbox.js';
import { selectSandbox } from '../sandbox/select-sandbox.js';

const [marker = '300'] = process.argv.slice(2);
const owner = 'cli:direct';
const manager = new ExecSessionManager();
const commands = [`echo up; sleep ${marker}; true`, `set -m; sleep ${marker} & echo up; wait`];
for (const sandbox of [new NoSandbox(), selectSandbox('required').sandbox]) {
  for (const command of commands) {
    const { sessionId } = await manager.start(
      { owner, command, shell: ['/bin/bash', '-c'], cwd: process.cwd(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, sandbox, timeoutMs: 0 },
      0,
      1000,
    );
    await manager.write({ sessionId, owner, waitFor: 'up', waitTimeoutMs: 60_000, yieldMs: 0, maxOutputChars: 1000 });
  }
}
// Keeps the event loop busy, so the exit below (or a signal) is the only way out.
setInterval(() => undefined, 1000);
process.stdin.once('data', () => process.exit(0));
process.stdout.write(`${JSON.stringify(manager.list(owner).map((info) => info.pid))}\n`);
