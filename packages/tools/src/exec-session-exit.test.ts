import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { assertBubblewrap, eventually, isGone } from './test-support/exec-harness.js';

const script = fileURLToPath(new URL('./test-support/exit-with-sessions.mts', import.meta.url));
const tsx = createRequire(import.meta.url).resolve('tsx/esm');

describe('background sessions at process exit', () => {
  it('are killed when the process exits without stopping them (boxed and unboxed)', { timeout: 120_000 }, async () => {
    assertBubblewrap();
    // `source` resolves the workspace packages to their TypeScript, as vitest does.
    const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', tsx, script], { timeout: 90_000 });
    const pids = JSON.parse(stdout.trim()) as number[];
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await eventually(() => isGone(pid))).toBe(true);
  });
});
