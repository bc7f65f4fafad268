import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { runs } from '@nanobot-internal/test-support';
import { JsonlSessionStore } from './index.js';

// 40 kills cover every interruption point in `pnpm test`; `pnpm test:exhaustive` runs 400.
const ITERATIONS = Number(process.env.NANOBOT_CRASH_ITERATIONS ?? runs(40, 400));
let childScript: string;
let workDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'nb-crash-'));
  childScript = join(workDir, 'child.mjs');
  // Bundled once so each child starts in tens of milliseconds (tsx would take ~0.5 s per start).
  await build({
    entryPoints: [join(import.meta.dirname, '..', 'test', 'crash-child.ts')],
    outfile: childScript,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    logLevel: 'silent',
  });
});

interface RunResult {
  acked: number[];
  sawReady: boolean;
}

// The kill is armed after `ready` plus `minAcks` acknowledgements (or at once when not waiting
// for ready), then fires after `delayMs`: how much gets written never depends on machine speed.
function runAndKill(dir: string, key: string, waitForReady: boolean, minAcks: number, delayMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [childScript, dir, key], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked: number[] = [];
    let sawReady = false;
    let buffer = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    const kill = () => {
      if (!timer) timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line === 'ready') {
          sawReady = true;
          if (waitForReady && minAcks === 0) kill();
        } else if (line.startsWith('ack ')) {
          acked.push(Number(line.slice(4)));
          if (waitForReady && acked.length >= minAcks) kill();
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    if (!waitForReady) kill();
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited on its own (${signal ?? _code}): ${stderr}`));
      else resolve({ acked, sawReady });
    });
  });
}

describe('crash safety (SIGKILL while appending)', () => {
  it(`every reload succeeds and keeps every acknowledged message (${ITERATIONS} kills)`, async () => {
    const dir = join(workDir, 'sessions');
    const key = 'crash:test';
    const verifier = new JsonlSessionStore({ dir, fsync: 'never', lock: { timeoutMs: 5000 } });
    const everAcked = new Set<number>();
    let totalAcked = 0;
    let tornTails = 0;
    let killedBeforeReady = 0;
    let required = 0;
    for (let i = 0; i < ITERATIONS; i += 1) {
      const waitForReady = Math.random() < 0.85;
      const minAcks = waitForReady ? Math.floor(Math.random() * 4) : 0;
      required += minAcks;
      const delay = Math.floor(Math.random() * 25);
      const { acked, sawReady } = await runAndKill(dir, key, waitForReady, minAcks, delay);
      if (!sawReady) killedBeforeReady += 1;
      for (const seq of acked) everAcked.add(seq);
      totalAcked += acked.length;

      const { session, warnings } = await verifier.load(key);
      for (const w of warnings) expect(w.kind, `iteration ${i}: ${w.message}`).toBe('truncated-line');
      tornTails += warnings.length;
      const seqs = session.messages.map((m) => m.seq as number);
      for (let j = 1; j < seqs.length; j += 1) expect(seqs[j], `iteration ${i}: order`).toBeGreaterThan(seqs[j - 1]);
      const present = new Set(seqs);
      for (const seq of everAcked) expect(present.has(seq), `iteration ${i}: acknowledged message ${seq} lost`).toBe(true);
    }
    // Not vacuous: at least the acknowledgements every kill waited for were checked.
    expect(totalAcked).toBeGreaterThanOrEqual(required);
    expect(required).toBeGreaterThan(0);
    const leftovers = readdirSync(dir).filter((n) => n.endsWith('.tmp') && !n.includes('.lock.'));
    console.log(
      `crash test: ${ITERATIONS} kills, ${totalAcked} acknowledged appends, ${killedBeforeReady} killed before ready, ` +
        `${tornTails} torn tails, ${leftovers.length} leftover rewrite temps`,
    );
  }, 180_000);
});
