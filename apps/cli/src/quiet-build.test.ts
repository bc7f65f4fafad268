// The root scripts `pnpm demo` and `pnpm nanobot` build through scripts/quiet-build.mjs, so the
// program's output is not buried under the build log: one line when the build works, the build's
// own output when it fails.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const SCRIPT = resolve(ROOT, 'scripts', 'quiet-build.mjs');

function build(pkg: string) {
  return spawnSync(process.execPath, [SCRIPT, pkg], { cwd: ROOT, encoding: 'utf8' });
}

describe('the quiet build of the root scripts', () => {
  it('prints one line on stderr and nothing on stdout when the build works', () => {
    const result = build('@nanobot-internal/test-support');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^built @nanobot-internal\/test-support .*in [\d.]+ s\n$/);
  }, 120_000);

  it('shows the build output when it fails, with its status', () => {
    const result = build('@nanobot/no-such-package');
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('No package found');
  }, 120_000);

  it('pnpm demo and pnpm nanobot use it', () => {
    const scripts = (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.demo).toBe('node scripts/quiet-build.mjs @nanobot/cli && node apps/cli/dist/bin.js run --demo');
    expect(scripts.nanobot).toBe('node scripts/quiet-build.mjs @nanobot/cli && node apps/cli/dist/bin.js');
  });
});
