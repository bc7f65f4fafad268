// Run by exec-session-exit.test.ts in a child process (through tsx): starts background sessions,
// prints their host pids, and exits without killing them — the manager's exit hook must.
import { ExecSessionManager } from '../exec-session-manager.js';
import { NoSandbox } from '../no-sandbox.js';
import { selectSandbox } from '../select-sandbox.js';

const manager = new ExecSessionManager();
const sandboxes = [new NoSandbox(), selectSandbox('required').sandbox];
for (const sandbox of sandboxes) {
  await manager.start(
    { owner: 'cli:direct', command: 'sleep 300', shell: ['/bin/sh', '-c'], cwd: process.cwd(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, sandbox, timeoutMs: 0 },
    0,
    1000,
  );
}
// Keeps the event loop busy, so the exit below is the only way out.
setInterval(() => undefined, 1000);
process.stdout.write(`${JSON.stringify(manager.list('cli:direct').map((info) => info.pid))}\n`, () => process.exit(0));
