import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { assertBubblewrap, eventually, isGone, killMarked, processesWith, uniqueSleep } from '../test-support/exec-harness.js';

const script = fileURLToPath(new URL('../test-support/own-sessions.mts', import.meta.url));
const tsx = createRequire(import.meta.url).resolve('tsx/esm');

/**
 * Starts an owner process with four background sessions (boxed and unboxed; a shell that forks
 * `sleep <marker>`, and a `set -m` job in its own group) and resolves, once it printed their
 * pids, with them, the pids of every process carrying the marker, and a promise of its end.
 * A line on its stdin makes it exit (without stopping the sessions).
 */
async function startOwner(marker: string) {
  // `source` resolves the workspace packages to their TypeScript, as vitest does.
  const child = spawn(process.execPath, ['--conditions=source', '--import', tsx, script, marker], { stdio: ['pipe', 'pipe', 'pipe'] });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0]);
    });
    child.on('exit', () => reject(new Error(`owner exited before reporting: ${stderr}`)));
  });
  const sessionPids = JSON.parse(line) as number[];
  // Everything the sessions started, read while the owner still holds it.
  const tree = (await processesWith(marker)).filter((pid) => pid !== child.pid);
  return { child, sessionPids, tree, ended };
}

/** Markers of this file's sessions: whatever carries one is killed after each test, pass or fail. */
const markers: string[] = [];
afterEach(async () => {
  for (const marker of markers.splice(0)) await killMarked(marker);
});

async function allGone(pids: readonly number[]): Promise<boolean> {
  for (const pid of pids) if (!(await isGone(pid))) return false;
  return true;
}

describe('background sessions outlive no owner (boxed and unboxed, set -m jobs included)', () => {
  it.each([
    ['exits without stopping them', undefined],
    ['is SIGTERMed (no exit handler runs)', 'SIGTERM'],
    ['is SIGKILLed', 'SIGKILL'],
  ] as const)('when the owner %s, every process of every session dies', { timeout: 180_000 }, async (_name, signal) => {
    assertBubblewrap();
    const marker = uniqueSleep();
    markers.push(marker);
    const owner = await startOwner(marker);
    expect(owner.sessionPids).toHaveLength(4);
    // Per session at least the shell (or bwrap) and its sleep: the check below cannot pass vacuously.
    expect(owner.tree.length).toBeGreaterThanOrEqual(8);
    for (const pid of owner.sessionPids) expect(owner.tree).toContain(pid);
    if (signal) owner.child.kill(signal);
    else owner.child.stdin.end('exit\n');
    const ended = await owner.ended;
    expect(ended).toEqual(signal ? { code: null, signal } : { code: 0, signal: null });
    expect(await eventually(() => allGone(owner.tree), 600)).toBe(true);
    // Nothing re-parented away carries the marker either.
    expect(await eventually(async () => (await processesWith(marker)).length === 0, 600)).toBe(true);
  });
});
