import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BubblewrapSandbox } from './bubblewrap-sandbox.js';

/** What a sandbox probe found: usable, or why not. */
export type SandboxProbeResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Checks whether a sandbox works here; may be slow (spawns), must not throw. Called once per exec tool. */
export type SandboxProbe = () => SandboxProbeResult;

const cache = new Map<string, SandboxProbeResult>();

/**
 * Runs `true` under the real bwrap arguments once per bwrap path and caches the answer:
 * missing binary, disabled user namespaces and seccomp-filtered containers all show up here
 * rather than in the first model command. Never throws.
 */
export function probeBubblewrap(bwrapPath?: string): SandboxProbeResult {
  const sandbox = new BubblewrapSandbox(bwrapPath ? { bwrapPath } : {});
  const known = cache.get(sandbox.bwrapPath);
  if (known) return known;
  let result: SandboxProbeResult;
  if (process.platform !== 'linux') result = { ok: false, reason: `bubblewrap needs Linux (this is ${process.platform})` };
  else {
    const dir = mkdtempSync(join(tmpdir(), 'nanobot-probe-'));
    try {
      const args = sandbox.args({ argv: ['/bin/sh', '-c', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' }, workspace: dir });
      const run = spawnSync(sandbox.bwrapPath, args, { env: { PATH: '/usr/bin:/bin' }, timeout: 15_000, encoding: 'utf8' });
      if (run.error) {
        const code = (run.error as NodeJS.ErrnoException).code;
        result = { ok: false, reason: code === 'ENOENT' ? `${sandbox.bwrapPath} not found` : run.error.message };
      } else if (run.status !== 0) {
        result = { ok: false, reason: `bwrap failed (${run.status ?? run.signal}): ${(run.stderr || '').trim().split('\n')[0]}` };
      } else result = { ok: true };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  cache.set(sandbox.bwrapPath, result);
  return result;
}
