import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `code` (ESM) in a fresh Node started in `cwd` with the source condition, and returns
 * every module URL it resolved: a test can then prove that an entry point does not load a
 * heavy dependency. `env` is merged over the current environment.
 */
export function loadedModules(cwd: string, code: string, env: Record<string, string> = {}): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'nanobot-trace-'));
  try {
    const trace = join(dir, 'trace.txt');
    execFileSync(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', '--import', join(import.meta.dirname, 'register-trace.mjs'), '--input-type=module', '-e', code],
      { cwd, env: { ...process.env, ...env, NANOBOT_TRACE_FILE: trace }, stdio: 'pipe' },
    );
    try {
      return readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
